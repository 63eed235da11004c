// mysql2 prepared statements against `binlogwriter serve` (tests/serve/test_prepared.py):
// argv: port user password then a JSON list of [sql, params] pairs; prints one JSON line per
// statement: {"rows": [...], "fields": [names]} or {"error": {"errno": n, "message": s}}.
import { createRequire } from 'module';
import path from 'path';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'conformance', 'node', 'package.json'));
const mysql = require('mysql2/promise');

const [port, user, password, json] = process.argv.slice(2);
const conn = await mysql.createConnection({ host: '127.0.0.1', port: Number(port), user, password });
for (const [sql, params] of JSON.parse(json)) {
  try {
    const [rows, fields] = await conn.execute(sql, params);
    console.log(JSON.stringify({ rows, fields: (fields || []).map((f) => f.name) }));
  } catch (err) {
    console.log(JSON.stringify({ error: { errno: err.errno, message: err.message } }));
  }
}
await conn.end();
