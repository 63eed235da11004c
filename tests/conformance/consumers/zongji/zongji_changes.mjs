// Reads a served binlog stream through ZongJi (@vlasky/zongji, installed in tests/conformance/node)
// and prints one JSON line per row change: {op, database, table, before, after}. Values that JSON
// has no type for are tagged: Buffer -> {"$bytes": base64}, Date -> {"$date": ISO text},
// bigint -> {"$int": text}. Stops after EXPECTED changes, or at TIMEOUT_MS.
// usage: node zongji_changes.mjs PORT USER PASSWORD SERVER_ID EXPECTED TIMEOUT_MS
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '..', 'node', 'package.json'));
const mod = await import(pathToFileURL(require.resolve('@vlasky/zongji')).href);
const ZongJi = mod.default || mod;

const [port, user, password, serverId, expected, timeoutMs] = process.argv.slice(2);
const zongji = new ZongJi({ host: '127.0.0.1', port: Number(port), user, password });
let seen = 0;
let done = false;

function tag(v) {
  if (v === null || v === undefined) return v;
  if (Buffer.isBuffer(v)) return { $bytes: v.toString('base64') };
  if (v instanceof Date) return { $date: isNaN(v.getTime()) ? String(v) : v.toISOString() };
  if (typeof v === 'bigint') return { $int: v.toString() };
  if (Array.isArray(v)) return v.map(tag);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, tag(x)]));
  return v;
}

function finish(code) {
  if (done) return;
  done = true;
  zongji.stop();
  setTimeout(() => process.exit(code), 200);
}

zongji.on('binlog', (evt) => {
  const name = evt.getEventName();
  const op = { writerows: 'insert', updaterows: 'update', deleterows: 'delete' }[name];
  if (!op) return;
  const tm = evt.tableMap[evt.tableId];
  for (const row of evt.rows) {
    const rec = { op, database: tm.parentSchema, table: tm.tableName, before: null, after: null };
    if (op === 'update') { rec.before = tag(row.before); rec.after = tag(row.after); }
    else if (op === 'insert') rec.after = tag(row);
    else rec.before = tag(row);
    process.stdout.write(JSON.stringify(rec) + '\n');
    seen += 1;
  }
  if (seen >= Number(expected)) finish(0);
});
zongji.on('error', (err) => {
  if (done) return;
  process.stderr.write(`zongji error: ${err && err.stack ? err.stack : err}\n`);
  finish(2);
});
setTimeout(() => { process.stderr.write('timeout\n'); finish(3); }, Number(timeoutMs));
zongji.start({ serverId: Number(serverId), filename: 'binlog.000001', position: 4,
  includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows'] });
