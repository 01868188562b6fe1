// The base of every streaming object: a state inside wasm memory (made by the plain export streamCreate,
// freed by streamFinal or streamFree), driven one chunk per call. Each stream owns its state from
// creation until final() or destroy(), which wipe and free it; one dropped without either is freed
// when garbage-collected (FinalizationRegistry), later and without guarantee.
import { asBytes, asOptionalBytes } from './args.mjs';
import { WacoreError } from './errors.mjs';
import { StreamKind } from './generated/boundary.mjs';

// Methods the stream classes share but users should not call.
export const HANDLE = Symbol('handle');
export const RELEASE = Symbol('release');
export const PUSH = Symbol('push');
export const FINISH = Symbol('finish');

const EMPTY = new Uint8Array(0);

export function makeStreamBase({ plain }) {
  const registry = new FinalizationRegistry((handle) => plain.streamFree(handle));

  function create(kind, keyBytes, ivBytes) {
    const key = asOptionalBytes(keyBytes, 'key');
    const iv = asOptionalBytes(ivBytes, 'iv');
    return plain.streamCreate(kind, key, iv);
  }

  class Stream {
    #handle;
    #media;
    constructor(kind, key, iv) {
      this.#handle = create(kind, key, iv);
      this.#media = kind === StreamKind.mediaEncrypt || kind === StreamKind.mediaDecrypt;
      registry.register(this, this.#handle, this);
    }
    /** The live handle, or ERR_STREAM_STATE after final() or destroy(). */
    [HANDLE]() {
      if (this.#handle === 0) throw new WacoreError('ERR_STREAM_STATE', 'the stream has already finished');
      return this.#handle;
    }
    /** Forgets the state (the core wiped and freed it). */
    [RELEASE]() {
      registry.unregister(this);
      this.#handle = 0;
    }
    /** Wipes and frees the stream's state without finishing it. Safe to call more than once. */
    destroy() {
      if (this.#handle !== 0) {
        plain.streamFree(this.#handle);
        this[RELEASE]();
      }
    }
    [PUSH](data) {
      const h = this[HANDLE]();
      const d = asBytes(data, 'data');
      try {
        return plain.streamUpdate(h, d, plain.streamUpdateSize(h, d.length));
      } catch (e) {
        this.destroy(); // a failed update ends the stream
        throw e;
      }
    }
    // Finishes the stream (tag: the expected GCM tag when decrypting, at most GCM_TAG_BYTES): the
    // bytes it wrote last; a media stream's as [tail, fileSha256, fileEncSha256]. The call's region
    // (tag and room, under 100 bytes) fits the I/O buffer as it always is, so the call cannot fail
    // before it reaches the core, which frees the state whatever the outcome.
    [FINISH](tag) {
      const h = this[HANDLE]();
      try {
        // Each frees the state, success or not.
        if (this.#media) return plain.streamFinalMedia(h, plain.streamFinalSize(h));
        return plain.streamFinal(h, tag ?? EMPTY, plain.streamFinalSize(h));
      } finally {
        this[RELEASE]();
      }
    }
  }

  return Stream;
}
