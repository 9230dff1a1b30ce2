import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import MiniSearch, { type Options } from "minisearch";
import type { KnowledgeChunk } from "./knowledge-chunks.js";

/**
 * The knowledge base of one workspace, in Redis: a MiniSearch index (BM25+ ranking, prefix and
 * fuzzy matching, in-place discard for incremental updates) serialised under one key, the chunks'
 * text in a hash, each file's content hash in another, and a version counter. Writers update all of
 * them in one MULTI guarded by WATCH on the version, so two workers indexing at once never lose an
 * update; readers keep a parsed index per version in memory and re-read only when it changed.
 */

/** Where the knowledge base lives. */
export interface KnowledgeStoreOptions {
  readonly redis: Redis | Cluster;
  /** Prefix of every key (config `redis.key_prefix`). */
  readonly keyPrefix: string;
}

/** What is known about one indexed file. */
export interface IndexedFile {
  readonly sha256: string;
  readonly chunks: number;
}

/** A consistent view of one workspace's knowledge base. */
export interface KnowledgeSnapshot {
  readonly version: number;
  readonly index: MiniSearch<KnowledgeChunk>;
  readonly files: Map<string, IndexedFile>;
}

/** Changes to apply in one atomic write. */
export interface KnowledgeChanges {
  readonly put: ReadonlyMap<string, { sha256: string; chunks: readonly KnowledgeChunk[] }>;
  readonly remove: readonly string[];
}

function indexOptions(): Options<KnowledgeChunk> {
  return {
    idField: "id",
    fields: ["text", "heading", "path"],
    storeFields: ["path", "startLine", "endLine", "heading"],
    searchOptions: { boost: { heading: 2, path: 1.5 }, prefix: true, fuzzy: 0.15 },
  };
}

/** Keys of one scope's knowledge base. */
interface ScopeKeys {
  readonly version: string;
  readonly index: string;
  readonly files: string;
  readonly chunks: string;
}

/** The knowledge base scope of a workspace: a hash of its real path. */
export function knowledgeScope(realWorkspace: string): string {
  return createHash("sha256").update(realWorkspace).digest("hex").slice(0, 16);
}

/** Reads and writes knowledge bases. */
export class KnowledgeStore {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #cache = new Map<string, KnowledgeSnapshot>();

  constructor(options: KnowledgeStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = options.keyPrefix;
  }

  // One hash tag per scope keeps its keys in one Redis Cluster slot (WATCH/MULTI need that).
  #keys(scope: string): ScopeKeys {
    const base = `${this.#prefix}:knowledge:{${scope}}`;
    return {
      version: `${base}:version`,
      index: `${base}:index`,
      files: `${base}:files`,
      chunks: `${base}:chunks`,
    };
  }

  /** The current snapshot (from memory when the version did not change). */
  async read(scope: string): Promise<KnowledgeSnapshot> {
    const keys = this.#keys(scope);
    const version = Number((await this.#redis.get(keys.version)) ?? 0);
    const cached = this.#cache.get(scope);
    if (cached && cached.version === version) return cached;
    const snapshot = await this.#load(scope, version);
    this.#cache.set(scope, snapshot);
    return snapshot;
  }

  async #load(scope: string, version: number): Promise<KnowledgeSnapshot> {
    const keys = this.#keys(scope);
    const [json, files] = await Promise.all([this.#redis.get(keys.index), this.#redis.hgetall(keys.files)]);
    const index = json
      ? MiniSearch.loadJSON<KnowledgeChunk>(json, indexOptions())
      : new MiniSearch(indexOptions());
    const map = new Map<string, IndexedFile>();
    for (const [path, value] of Object.entries(files)) map.set(path, JSON.parse(value) as IndexedFile);
    return { version, index, files: map };
  }

  /** The text of chunks by id (missing ones are left out). */
  async chunkTexts(scope: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const values = await this.#redis.hmget(this.#keys(scope).chunks, ...ids);
    const out = new Map<string, string>();
    ids.forEach((id, i) => {
      const value = values[i];
      if (typeof value === "string") out.set(id, value);
    });
    return out;
  }

  /**
   * Applies changes computed by `plan` from the current snapshot, atomically. `plan` sees a fresh
   * copy each attempt; when another writer got in between (the version moved), it is re-run on the
   * new state, up to `attempts` times.
   */
  async update<T>(
    scope: string,
    plan: (snapshot: KnowledgeSnapshot) => Promise<{ changes: KnowledgeChanges; summary: T }>,
    attempts = 5,
  ): Promise<T> {
    const keys = this.#keys(scope);
    // WATCH belongs to a connection: a dedicated one, so no other command of this process can
    // run a MULTI in between and consume or clear the watch.
    const conn = this.#redis.duplicate();
    try {
      return await this.#updateOn(conn, scope, keys, plan, attempts);
    } finally {
      conn.disconnect();
    }
  }

  async #updateOn<T>(
    conn: Redis | Cluster,
    scope: string,
    keys: ScopeKeys,
    plan: (snapshot: KnowledgeSnapshot) => Promise<{ changes: KnowledgeChanges; summary: T }>,
    attempts: number,
  ): Promise<T> {
    for (let attempt = 0; attempt < attempts; attempt++) {
      await conn.watch(keys.version);
      const version = Number((await conn.get(keys.version)) ?? 0);
      const snapshot = await this.#load(scope, version);
      const { changes, summary } = await plan(snapshot);
      if (changes.put.size === 0 && changes.remove.length === 0) {
        await conn.unwatch();
        this.#cache.set(scope, snapshot);
        return summary;
      }
      const chunkRemovals: string[] = [];
      const chunkTexts: Record<string, string> = {};
      const fileValues: Record<string, string> = {};
      for (const path of [...changes.remove, ...changes.put.keys()]) {
        const old = snapshot.files.get(path);
        for (let i = 0; i < (old?.chunks ?? 0); i++) {
          const id = `${path}#${i}`;
          if (snapshot.index.has(id)) snapshot.index.discard(id);
          chunkRemovals.push(id);
        }
        snapshot.files.delete(path);
      }
      for (const [path, { sha256, chunks }] of changes.put) {
        snapshot.index.addAll([...chunks]);
        for (const chunk of chunks) chunkTexts[chunk.id] = chunk.text;
        const file: IndexedFile = { sha256, chunks: chunks.length };
        snapshot.files.set(path, file);
        fileValues[path] = JSON.stringify(file);
      }
      const tx = conn.multi();
      tx.set(keys.index, JSON.stringify(snapshot.index));
      if (chunkRemovals.length > 0) tx.hdel(keys.chunks, ...chunkRemovals);
      if (Object.keys(chunkTexts).length > 0) tx.hset(keys.chunks, chunkTexts);
      if (changes.remove.length > 0) tx.hdel(keys.files, ...changes.remove);
      if (Object.keys(fileValues).length > 0) tx.hset(keys.files, fileValues);
      tx.incr(keys.version);
      const result = await tx.exec();
      if (result !== null) {
        const next = Number(result.at(-1)?.[1] ?? version + 1);
        this.#cache.set(scope, { ...snapshot, version: next });
        return summary;
      }
    }
    throw new Error(`the knowledge base kept changing while it was being updated (${attempts} attempts)`);
  }
}
