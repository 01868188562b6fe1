// How outputs are handed to callers.
import { NodeBuffer } from './node-buffer.mjs';

const HAS_BUFFER = NodeBuffer !== undefined;

/** Outputs are Buffers in Node (as the libraries this package stands in for return them),
 * Uint8Arrays elsewhere. Zero-copy. */
export const output = (u8) => (HAS_BUFFER ? NodeBuffer.from(u8.buffer, u8.byteOffset, u8.length) : u8);
