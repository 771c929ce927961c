import { datasetInput } from "./dataset-input.js";
import { fileInput } from "./file-input.js";
import { httpInput } from "./http-input.js";
import type { InputContext, InputKind, PreparedInput, ResolvedInput } from "./identity.js";
import { preparedInput } from "./identity.js";
import { objectInput } from "./object-input.js";
import { loadScheme } from "../store/backends.js";

export type { InputKind, PreparedInput, ResolvedInput } from "./identity.js";
export { absentInput, keyedIdentity } from "./identity.js";
export { InputIdentityError, InputMissingError } from "./identity-error.js";

/** The input kinds, first match wins; a local file is the fallback. A new kind is one line here. */
const KINDS: readonly InputKind[] = [httpInput, datasetInput, objectInput, fileInput];

/**
 * Identifies an input by its kind: an upstream dataset by its artifact's sha256, http(s) by what the server vouches
 * for, an object URL by its version token, a local path by the sha256 of its bytes. Reading it later checks the
 * identity again, so a file that changed mid-run fails the run instead of mixing two versions.
 */
export async function resolveInput(
  uri: string,
  context: InputContext & { prepared?: PreparedInput } = {},
): Promise<ResolvedInput> {
  if (context.prepared) return preparedInput(uri, context.prepared);
  // An object URL's store backend loads on first use (s3://, az://): only then can its kind tell it is one.
  await loadScheme(uri).catch(() => undefined);
  const kind = KINDS.find((k) => k.matches(uri)) as InputKind;
  return kind.resolve(uri, context);
}
