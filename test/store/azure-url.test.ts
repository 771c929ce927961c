/** az:// and azure:// URLs and Azure credentials, before any request: what opens, and what is refused and how. */
import { describe, expect, it } from "vitest";
import { AzureStore, azureOptions } from "../../src/store/azure.js";
import { isObjectUrl, openObject, openStore } from "../../src/store/open.js";
import { hasMultipartUploads } from "../../src/store/types.js";

const KEY = Buffer.from("not-a-real-key-but-base64").toString("base64");
const ENV = { AZURE_STORAGE_ACCOUNT: "acct", AZURE_STORAGE_KEY: KEY };

function refusal(open: () => unknown): string {
  try {
    open();
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
  throw new Error("expected a refusal");
}

describe("az:// store URLs", () => {
  it("name a container and a prefix, under either scheme", () => {
    for (const scheme of ["az", "azure"]) {
      const store = new AzureStore({ ...azureOptions(`${scheme}://maps/eu/roads/`), env: ENV });
      expect([store.container, store.prefix, store.url]).toEqual(["maps", "eu/roads", "az://maps/eu/roads"]);
      expect(store.endpoint).toBe("https://acct.blob.core.windows.net");
      expect(store.locate("a b/é.parquet")).toBe("az://maps/eu/roads/a b/é.parquet");
      expect(hasMultipartUploads(store)).toBe(true);
    }
    const local = new AzureStore({
      ...azureOptions("az://maps?endpoint=http://127.0.0.1:10000/acct"),
      env: ENV,
    });
    expect(local.endpoint).toBe("http://127.0.0.1:10000/acct");
  });

  it("object URLs split into the container's store and the key", () => {
    expect(isObjectUrl("az://maps/in/points.json")).toBe(true);
    const { storeUrl, key } = openObject("azure://maps/in/a%20b.json");
    expect([storeUrl, key]).toEqual(["azure://maps", "in/a b.json"]);
    expect(() => openObject("az://maps")).toThrow(/expected az:\/\/container\/key/);
  });

  it("refuse credentials in the URL, and never repeat them", () => {
    const sas = refusal(() => openStore("az://maps/p?sv=2024-01-01&sig=SECRETSIG"));
    expect(sas).toMatch(/^Misconfigured: .*unknown parameter 'sv', 'sig'.*AZURE_STORAGE_SAS_TOKEN/);
    expect(sas).not.toContain("SECRETSIG");
    const user = refusal(() => openStore("az://user:SECRETPASS@maps/p"));
    expect(user).toMatch(/^Misconfigured: credentials do not belong in a store URL/);
    expect(user).not.toContain("SECRETPASS");
    const endpoint = refusal(
      () =>
        new AzureStore({ container: "maps", endpoint: "https://acct.blob.core.windows.net/?sig=SECRETSIG", env: ENV }),
    );
    expect(endpoint).toMatch(/^Misconfigured: the Azure endpoint .* carries credentials or a query/);
    expect(endpoint).not.toContain("SECRETSIG");
  });

  it("refuse a bad container name, a prefix that escapes, and a missing account, saying what to set", () => {
    expect(refusal(() => openStore("az://Maps_1/p"))).toMatch(
      /^Misconfigured: 'Maps_1' is not an Azure container name/,
    );
    expect(refusal(() => openStore("az://maps/a/../b"))).toMatch(/^InvalidKey: .*'\.\.' segment/);
    expect(refusal(() => new AzureStore({ container: "maps", env: {} }))).toMatch(
      /^Misconfigured: no Azure storage account: set AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT/,
    );
    expect(
      refusal(() => new AzureStore({ container: "maps", env: { AZURE_STORAGE_KEY: KEY }, endpoint: "http://h/x" })),
    ).toMatch(/AZURE_STORAGE_KEY is set but AZURE_STORAGE_ACCOUNT is not/);
  });

  it("without a key or SAS, a signed-in identity is used: refused over http, and said plainly when there is none", async () => {
    const overHttp = new AzureStore({
      container: "maps",
      endpoint: "http://127.0.0.1:9/acct",
      env: { AZURE_STORAGE_ACCOUNT: "acct" },
    });
    const http = await overHttp.head("x").catch((e: unknown) => e as { code: string; message: string });
    expect(http).toMatchObject({ code: "Misconfigured", message: expect.stringMatching(/needs an https endpoint/) });
    const noIdentity = new AzureStore({
      container: "maps",
      endpoint: "https://127.0.0.1:9/acct",
      env: { AZURE_STORAGE_ACCOUNT: "acct" },
    });
    const none = await noIdentity.head("x").catch((e: unknown) => e as { code: string; message: string });
    expect(none).toMatchObject({
      code: "AccessDenied",
      message: expect.stringMatching(/no Azure credentials: DefaultAzureCredential found no identity/),
    });
  }, 30_000);

  it("a broken connection string is refused without showing it", () => {
    const bad = refusal(
      () =>
        new AzureStore({
          container: "maps",
          env: { AZURE_STORAGE_CONNECTION_STRING: "AccountKey=SECRETKEY;nonsense" },
        }),
    );
    expect(bad).toMatch(/^Misconfigured: AZURE_STORAGE_CONNECTION_STRING is not a valid connection string/);
    expect(bad).not.toContain("SECRETKEY");
    const good = new AzureStore({
      container: "maps",
      env: {
        AZURE_STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${KEY};EndpointSuffix=core.windows.net`,
      },
    });
    expect(good.endpoint).toBe("https://acct.blob.core.windows.net/");
  });
});
