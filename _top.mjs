import { readFileSync, readdirSync } from 'node:fs';
const dir = '/tmp/cpuprof'; const f = readdirSync(dir).sort().pop();
const p = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
const self = new Map();
const dt = {}; for (let i = 0; i < p.samples.length; i++) dt[p.samples[i]] = (dt[p.samples[i]] || 0) + (p.timeDeltas[i] || 0);
for (const n of p.nodes) { const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) || 0) + (dt[n.id] || 0)); }
const tot = [...self.values()].reduce((a, b) => a + b, 0);
for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 16)) console.log((100 * v / tot).toFixed(1) + '%', k);
