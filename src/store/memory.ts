import { sha256Hex } from "./digest.js";
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from "./errors.js";
import { compareKeys, validateKey, validatePrefix } from "./keys.js";
import type {
  GetOptions,
  GetResult,
  ListEntry,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  PutBody,
  PutOptions,
  PutResult,
} from "./types.js";
import { bodyBytes } from "./types.js";
import { sliceRange } from "./range.js";

interface Entry {
  body: Uint8Array;
  meta: ObjectMeta;
}

/** Stores opened by name share their objects within one process, as two clients of one bucket would. */
const registry = new Map<string, Map<string, Entry>>();

/**
 * In-process store for tests and dry runs. Every operation completes synchronously between awaits, which is
 * what makes create and update atomic here.
 */
export class MemoryStore implements ObjectStore {
  readonly url: string;
  private readonly objects: Map<string, Entry>;

  constructor(name = "default") {
    this.url = `memory://${name}`;
    let objects = registry.get(name);
    if (!objects) registry.set(name, (objects = new Map()));
    this.objects = objects;
  }

  /** The version a put of these bytes gets: their sha256 (PredictsVersions). */
  versionFor(body: Uint8Array): string {
    return sha256Hex(body);
  }

  locate(key: string): string {
    return `${this.url}/${validateKey(key)}`;
  }

  async head(key: string): Promise<ObjectMeta> {
    return { ...this.entry(key).meta };
  }

  async exists(key: string): Promise<boolean> {
    return this.objects.has(validateKey(key));
  }

  async get(key: string, options?: GetOptions): Promise<GetResult> {
    const entry = this.entry(key);
    return { meta: { ...entry.meta }, body: sliceRange(entry.body, options?.range, key).slice() };
  }

  async put(key: string, input: PutBody, options?: PutOptions): Promise<PutResult> {
    validateKey(key);
    const body = await bodyBytes(input);
    const mode = options?.mode ?? "overwrite";
    const current = this.objects.get(key);
    if (mode === "create" && current) throw new AlreadyExistsError(`${this.locate(key)} already exists`, { key });
    if (typeof mode === "object" && current?.meta.version !== mode.update) {
      throw new PreconditionFailedError(
        current
          ? `${this.locate(key)} changed: expected version ${mode.update}, found ${current.meta.version}`
          : `${this.locate(key)} does not exist (expected version ${mode.update})`,
        { key },
      );
    }
    const copy = Uint8Array.from(body);
    const version = sha256Hex(copy);
    this.objects.set(key, { body: copy, meta: { key, size: copy.byteLength, version, lastModified: new Date() } });
    return { version };
  }

  async delete(key: string): Promise<void> {
    validateKey(key);
    this.objects.delete(key);
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry> {
    validatePrefix(prefix);
    const keys = [...this.objects.keys()]
      .filter(
        (k) => k.startsWith(prefix) && (options?.startAfter === undefined || compareKeys(k, options.startAfter) > 0),
      )
      .sort(compareKeys);
    for (const key of keys) {
      const entry = this.objects.get(key);
      if (entry)
        yield { key, size: entry.meta.size, lastModified: entry.meta.lastModified, version: entry.meta.version };
    }
  }

  async close(): Promise<void> {}

  /** Forget every object of the named store (tests). */
  static reset(name: string): void {
    registry.delete(name);
  }

  private entry(key: string): Entry {
    validateKey(key);
    const entry = this.objects.get(key);
    if (!entry) throw new NotFoundError(`${this.url}/${key} not found`, { key });
    return entry;
  }
}
