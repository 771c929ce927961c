import { hasMultipartUploads, predictsVersions } from "./types.js";
import type {
  GetOptions,
  ListOptions,
  MultipartUploads,
  ObjectStore,
  PredictsVersions,
  PutBody,
  PutOptions,
} from "./types.js";

export type StoreCall = "head" | "exists" | "get" | "put" | "delete" | "list";

/**
 * Wraps a store and counts its calls by kind (a list counts once per call, whatever its pages): request budgets
 * and request bills are about calls, not time.
 */
export class CountingStore implements ObjectStore {
  readonly calls: Record<StoreCall, number> = { head: 0, exists: 0, get: 0, put: 0, delete: 0, list: 0 };

  constructor(readonly inner: ObjectStore) {
    // Capabilities pass through the wrapper, counted as the requests they are: wrapping a store must never turn
    // one off (gc finds stale multipart uploads only through this interface).
    if (hasMultipartUploads(inner)) {
      const self = this as unknown as MultipartUploads;
      self.staleUploads = (before) => {
        this.calls.list++;
        return inner.staleUploads(before);
      };
      self.abortUpload = (key, uploadId) => {
        this.calls.delete++;
        return inner.abortUpload(key, uploadId);
      };
    }
    // A prediction is no request: not counted.
    if (predictsVersions(inner)) (this as unknown as PredictsVersions).versionFor = (body) => inner.versionFor(body);
  }

  get url(): string {
    return this.inner.url;
  }

  get prefersListing(): boolean | undefined {
    return this.inner.prefersListing;
  }

  get total(): number {
    return Object.values(this.calls).reduce((a, b) => a + b, 0);
  }

  reset(): void {
    for (const k of Object.keys(this.calls) as StoreCall[]) this.calls[k] = 0;
  }

  locate(key: string): string {
    return this.inner.locate(key);
  }

  head(key: string) {
    this.calls.head++;
    return this.inner.head(key);
  }

  exists(key: string) {
    this.calls.exists++;
    return this.inner.exists(key);
  }

  get(key: string, options?: GetOptions) {
    this.calls.get++;
    return this.inner.get(key, options);
  }

  put(key: string, body: PutBody, options?: PutOptions) {
    this.calls.put++;
    return this.inner.put(key, body, options);
  }

  delete(key: string) {
    this.calls.delete++;
    return this.inner.delete(key);
  }

  async *list(prefix: string, options?: ListOptions) {
    this.calls.list++;
    yield* this.inner.list(prefix, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
