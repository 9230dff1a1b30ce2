/**
 * An immutable set. `Object.freeze` does not stop `Set.prototype.add`, so a deep-frozen context
 * holding a plain Set could still be changed; this wrapper has no mutators at all. It keeps the
 * insertion order of the values it was built from.
 */
export class FrozenSet<T> implements ReadonlySet<T> {
  readonly #values: Set<T>;

  constructor(values: Iterable<T> = []) {
    this.#values = new Set(values);
    Object.freeze(this);
  }

  get size(): number {
    return this.#values.size;
  }

  has(value: T): boolean {
    return this.#values.has(value);
  }

  forEach(callback: (value: T, value2: T, set: ReadonlySet<T>) => void, thisArg?: unknown): void {
    for (const value of this.#values) callback.call(thisArg, value, value, this);
  }

  entries(): SetIterator<[T, T]> {
    return this.#values.entries();
  }

  keys(): SetIterator<T> {
    return this.#values.keys();
  }

  values(): SetIterator<T> {
    return this.#values.values();
  }

  [Symbol.iterator](): SetIterator<T> {
    return this.#values.values();
  }

  /** The values as an array (for JSON and logs). */
  toJSON(): T[] {
    return [...this.#values];
  }
}
