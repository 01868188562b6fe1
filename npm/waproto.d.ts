import type { Bytes } from './index.js';

/** A message class as protobufjs generates it for WAProto, on wacore-wasm's codec. The shapes of
 * the messages are those of the package's WAProto types (wacore-wasm's `WAProto` namespace);
 * Baileys keeps its own types for them. */
export interface ProtoMessageClass {
  new (properties?: Record<string, unknown>): Record<string, any>;
  create(properties?: Record<string, unknown>): Record<string, any>;
  decode(data: Bytes | { buf: Uint8Array; pos: number; len: number }, length?: number): Record<string, any>;
  encode(message: Record<string, unknown>): { finish(): Uint8Array };
  fromObject(object: Record<string, unknown>): Record<string, any>;
  toObject(message: Record<string, unknown>, options?: { longs?: unknown; enums?: unknown; bytes?: unknown; defaults?: boolean; arrays?: boolean; objects?: boolean; oneofs?: boolean; json?: boolean }): Record<string, any>;
  verify(message: Record<string, unknown>): string | null;
  getTypeUrl(prefix?: string): string;
  /** Nested message classes and enums. */
  readonly [nested: string]: any;
}

/** The WAProto namespace: message classes (nested ones as their properties) and enums. */
export declare const proto: { readonly [name: string]: any };
declare const root: { proto: typeof proto };
export default root;
