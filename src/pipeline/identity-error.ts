/** An input cannot be identified or read as the run identified it (missing, changed mid-run, refused). */
export class InputIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputIdentityError";
  }
}
