// The one error class of the package: every wacore-wasm function throws (or rejects with) a
// WacoreError whose `code` is stable (npm/index.d.ts lists them, generated from their declaration).

/** Error thrown (or rejected) by every wacore-wasm function. `code` is stable; `message` is not. */
export class WacoreError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'WacoreError';
    this.code = code;
  }
}
