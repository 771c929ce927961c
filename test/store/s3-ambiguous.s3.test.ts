/** S3 writes whose answer is lost, on the real RGW behind a proxy that loses answers (lost-answers.ts). */
import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { StoreError } from "../../src/store/errors.js";
import { S3Store } from "../../src/store/s3.js";
import { describeLostAnswers } from "./lost-answers.js";

const s3 = inject("s3");
if (!s3) throw new Error("S3 test server not configured");
const opts = {
  bucket: s3.bucket,
  prefix: `t/${randomUUID()}`,
  region: s3.region,
  forcePathStyle: true,
  credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  retry: { attempts: 4, baseMs: 10, capMs: 50 },
};

describeLostAnswers("S3 (RGW)", () => ({
  upstream: s3.endpoint,
  direct: new S3Store({ ...opts, endpoint: s3.endpoint }),
  through: (origin, requestTimeoutMs) => new S3Store({ ...opts, endpoint: origin, requestTimeoutMs }),
}));

describe("S3 credentials in errors", () => {
  it("never puts the secret key in an error message", async () => {
    const wrong = new S3Store({
      ...opts,
      endpoint: s3.endpoint,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: "s3cr3t-never-print-me" },
    });
    for (const op of [
      () => wrong.head("x"),
      () => wrong.put("x", new TextEncoder().encode("x"), { mode: "create" }),
      () => wrong.get("x"),
    ]) {
      const error = (await op().catch((e: unknown) => e)) as StoreError;
      expect(error.code).toBe("AccessDenied");
      expect(error.message).toMatch(/refused the credentials/);
      expect(`${error.message} ${error.stack}`).not.toContain("s3cr3t-never-print-me");
    }
  });
});
