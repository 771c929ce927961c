/**
 * The base of every georefresh error. `code` is stable, for machines and for the CLI's one table from code to exit
 * code (cli/exit-codes.ts): the class name without "Error", unless the class names its own (store errors do).
 */
export class GeorefreshError extends Error {
  readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = (new.target as unknown as { code?: string }).code ?? new.target.name.replace(/Error$/, "");
  }
}
