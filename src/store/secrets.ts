/**
 * Credentials never reach output, logs or stored records: URLs are printed with their userinfo and signed or
 * secret query parameters replaced by "***". Applied at every boundary where text leaves the process (CLI
 * output, outbox records, manifests) and to URLs kept for messages.
 */
const SECRET_PARAMS =
  /([?&](?:x-amz-signature|x-amz-credential|x-amz-security-token|sig|signature|token|access_token|password|passwd|secret|key|apikey|api_key|code)=)[^&#\s"'<>]*/gi;
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>]*@)?([^\s"'<>]*)/gi;

/** The secret fields of an Azure Storage connection string, wherever one ends up in text. */
const CONNECTION_SECRETS = /\b(AccountKey|SharedAccessSignature|SharedAccessKey)=[^;\s"'<>]*/gi;

export function redact(text: string): string {
  return text
    .replace(CONNECTION_SECRETS, "$1=***")
    .replace(
      URL_IN_TEXT,
      (_, scheme: string, userinfo: string | undefined, rest: string) =>
        `${scheme}${userinfo ? "***@" : ""}${rest.replace(SECRET_PARAMS, "$1***")}`,
    );
}

/** Whether the URL carries credentials of its own (userinfo). */
export function hasUserinfo(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== "" || u.password !== "";
  } catch {
    return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url);
  }
}
