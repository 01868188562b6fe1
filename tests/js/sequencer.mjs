// The order Vitest starts the test files in: the longest first, whatever their project, so that
// no long file starts last and runs alone while the other cores idle (on 2 cores, a 15 s file
// started last was up to 15 s of the stage). Vitest's own sequencer orders by the durations it
// cached in an earlier run, which a fresh clone (CI) does not have; this one uses seconds measured
// once per file (the heavier build's, `npx vitest run`; an order, so a rough figure is enough)
// and the file size for the rest.
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { BaseSequencer } from 'vitest/node';

const SECONDS = {
  'oom.test.mjs': 20,
  'auth-store.test.mjs': 16,
  'server.test.mjs': 15,
  'web-whatsapp.test.mjs': 15,
  'package.test.mjs': 12,
  'server-groups.test.mjs': 7.5,
  'proto.test.mjs': 7,
  'server-media.test.mjs': 6,
  'hostile.test.mjs': 4,
  'server-hostile.test.mjs': 3.7,
  'oom-injected.test.mjs': 3.6,
  'baileys.test.mjs': 3.5,
  'shared-input.test.mjs': 3.5,
  'loader.test.mjs': 3.3,
  'proto-facade.test.mjs': 2.4,
  'baileys6.test.mjs': 2.3,
};

export default class LongestFirst extends BaseSequencer {
  async sort(files) {
    const weight = (spec) => SECONDS[basename(spec.moduleId)] ?? statSync(spec.moduleId).size / 1e6;
    return [...files].sort((a, b) => weight(b) - weight(a));
  }
}
