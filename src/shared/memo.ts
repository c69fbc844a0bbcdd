export interface MemoOptions {
  /**
   * When the promise is forgotten, so that the next call makes a new one: `failure` (the default)
   * when it rejects; `settled` as soon as it settles, so only calls made while it runs share it
   * (one refresh at a time).
   */
  forget?: 'failure' | 'settled'
}

/**
 * A promise made on first use and shared by every caller, forgotten if it rejects: the next call
 * makes a new one. For work whose failure the user can fix while we run (installing Python or
 * bubblewrap, a sandbox the kernel lacked), so a failure is reported, never remembered.
 */
export class Memo<T> {
  private promise: Promise<T> | undefined

  constructor(
    private readonly create: () => Promise<T>,
    private readonly options: MemoOptions = {},
  ) {}

  get(): Promise<T> {
    if (this.promise) return this.promise
    const promise = this.create()
    this.promise = promise
    const forget = (): void => {
      if (this.promise === promise) this.promise = undefined
    }
    if (this.options.forget === 'settled') promise.then(forget, forget)
    else promise.catch(forget)
    return promise
  }

  /** The promise made so far, without making one. */
  get current(): Promise<T> | undefined {
    return this.promise
  }
}

/** {@link Memo} by key: one shared promise per key, each forgotten if it rejects. */
export class MemoMap<K, V> {
  private readonly promises = new Map<K, Promise<V>>()

  get(key: K, create: () => Promise<V>): Promise<V> {
    const known = this.promises.get(key)
    if (known) return known
    const promise = create()
    this.promises.set(key, promise)
    promise.catch(() => {
      if (this.promises.get(key) === promise) this.promises.delete(key)
    })
    return promise
  }
}
