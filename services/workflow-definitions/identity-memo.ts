interface MemoNode<R> {
  next: WeakMap<object, MemoNode<R>>;
  result?: { value: R };
}

/**
 * A result made from shared, unchanging values (the folder caches' frozen reads), kept for as long
 * as those same values are in use: while no folder changes, every listing is the same object, so
 * what is derived from it (its serialized body) is made once too. A changed folder is a new value,
 * and a new key; the old results go with the old values.
 */
export class IdentityMemo<R> {
  private readonly root: MemoNode<R> = { next: new WeakMap() };

  get(parts: readonly object[], make: () => R): R {
    let node = this.root;
    for (const part of parts) {
      let next = node.next.get(part);
      if (!next) {
        next = { next: new WeakMap() };
        node.next.set(part, next);
      }
      node = next;
    }
    node.result ??= { value: make() };
    return node.result.value;
  }
}
