// Reads a binlog stream through ZongJi (@vlasky/zongji) and prints, as one JSON line, how many
// rows of each kind and how many XID events it received. Used by test_serve_zongji.py.
// usage: node zongji_count.mjs PORT USER PASSWORD EXPECTED_XIDS [GTID_SET]

import ZongJi from '@vlasky/zongji';

const [port, user, password, expected, gtidSet] = process.argv.slice(2);
const counts = { writerows: 0, updaterows: 0, deleterows: 0, xid: 0, tables: {} };
const zongji = new ZongJi({ host: '127.0.0.1', port: Number(port), user, password });
let done = false;

function finish(code) {
  if (done) return;
  done = true;
  process.stdout.write(JSON.stringify(counts) + '\n');
  zongji.stop();
  setTimeout(() => process.exit(code), 200);
}

zongji.on('binlog', (evt) => {
  const name = evt.getEventName();
  if (name === 'xid') {
    counts.xid += 1;
    if (counts.xid >= Number(expected)) finish(0);
  } else if (name in counts) {
    counts[name] += evt.rows.length;
    const t = `${evt.tableMap[evt.tableId].parentSchema}.${evt.tableMap[evt.tableId].tableName}`;
    counts.tables[t] = (counts.tables[t] || 0) + evt.rows.length;
  }
});
zongji.on('error', (err) => {
  if (done) return;
  process.stderr.write(`zongji error: ${err && err.stack ? err.stack : err}\n`);
  finish(2);
});
setTimeout(() => { process.stderr.write('timeout\n'); finish(3); }, 60000);

const opts = { serverId: 4242, includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows', 'xid'] };
if (gtidSet !== undefined) opts.gtidSet = gtidSet; else { opts.filename = 'binlog.000001'; opts.position = 4; }
zongji.start(opts);
