// What the Signal session module (lib/signal.mjs) and the sender-key module (lib/groups.mjs) share:
// record arguments, the stored forms of records, the record classes' constructor from bytes, and
// the mapping of the core's errors onto each module's error classes.
import { asBytes, describe } from '../args.mjs';
import { WacoreError } from '../errors.mjs';
import { fromBase64, toBase64Copy } from './base64.mjs';

const EMPTY = new Uint8Array(0);

/** Record bytes from a functional-layer argument: undefined and null are the empty record. */
export const recordBytes = (r) => (r == null ? EMPTY : asBytes(r, 'record'));

/** raise(rc) for a module with error classes of its own: make(error) gives what to throw for the
 * core's WacoreError (undefined: the core's error itself). */
export const raiseWith = (fail, make) => (rc) => {
  try {
    fail(rc);
  } catch (e) {
    throw make(e) ?? e;
  }
};

/** A record class's instance holding bytes (the classes' _set). */
export const recordMaker = (Record) => (bytes) => {
  const r = new Record();
  r._set(bytes);
  return r;
};

const quoted = (names) => {
  const q = names.map((n) => `'${n}'`);
  return q.length === 1 ? q[0] : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
};

/** recordFromStored and recordToStored for one kind of record.
 *  - name: what the record is called in errors;
 *  - jsonStart: the first character of its JSON text ('{' or '['), which base64 never starts with;
 *  - toRecordBytes(value): record bytes from any other stored value;
 *  - forms: the stored forms besides 'text' (the binary form as base64), as form => (record => value). */
export function storedForms({ name, jsonStart, toRecordBytes, forms }) {
  const names = quoted(['text', ...Object.keys(forms)]);
  return {
    recordFromStored(value) {
      if (typeof value === 'string' && value.trimStart()[0] !== jsonStart) return fromBase64(value, name);
      return toRecordBytes(value);
    },
    recordToStored(record, form = 'text') {
      if (form === 'text') return toBase64Copy(recordBytes(record));
      if (typeof form === 'string' && Object.hasOwn(forms, form)) return forms[form](record);
      throw new WacoreError('ERR_TYPE', `form must be ${names}, not ${describe(form)}`);
    },
  };
}
