// gomysql_changes: go-mysql's replication.BinlogSyncer (github.com/go-mysql-org/go-mysql,
// pinned in go.mod) reading a served binlog stream and printing one JSON line per row change,
// for the go-mysql conformance adapter (adapter.py next to this file, issue #31 §4).
//
// It connects as a replica would (Flavor "mysql" or "mariadb"), dumps from a file and
// position (default: the first file at position 4) or from a GTID set, and prints:
//
//	{"kind":"table", ...}   on every TABLE_MAP event: table id, schema, name, the column
//	                        names when the event carries them (binlog_row_metadata=FULL:
//	                        ColumnNameString(), else null), the real column types, signedness
//	                        (UnsignedMap) and ENUM/SET value lists when present;
//	{"kind":"change", ...}  per row of a WRITE/UPDATE/DELETE rows event (v0/v1/v2, and
//	                        MariaDB's compressed variants): op, table id, the before/after
//	                        rows as go-mysql decodes them (positional) with the indexes of
//	                        the columns the row image leaves out, the GTID, file, the rows
//	                        event's start offset and size, the header timestamp and, once
//	                        the transaction commits, its XID;
//	{"kind":"end", ...}     when N changes were printed or the timeout passed: the reason,
//	                        the number of changes printed and of heartbeat events received.
//
// Changes are buffered per transaction and printed at its XID (or COMMIT query event, or the
// next GTID event), so each change line carries the XID.
//
// Decoder options, set explicitly:
//
//	ParseTime=false        DATETIME/TIMESTAMP come as text "YYYY-MM-DD hh:mm:ss[.f...]" (go-mysql's
//	                       own formatting, zero dates kept) instead of time.Time;
//	TimestampStringLocation=UTC  TIMESTAMP text is rendered in UTC;
//	UseDecimal=false       DECIMAL comes as go-mysql's exact decimal text;
//	UseFloatWithTrailingZero=false  FLOAT/DOUBLE are float32/float64.
//
// Value encoding in JSON: nil -> null; integers -> JSON numbers (exact); float32 -> the
// exactly widened float64; float64 -> JSON number (shortest round-trip text); a Go string that
// is valid UTF-8 -> JSON string; a Go string that is not -> {"$str64": base64}; []byte ->
// {"$bytes64": base64}; decimal.Decimal -> {"$decimal": text}; time.Time -> {"$time": RFC 3339};
// *replication.JsonDiff (a JSON column of a PARTIAL_UPDATE_ROWS_EVENT after image) ->
// {"$jsondiff": {"op": Replace|Insert|Remove, "path": its path, "value": go-mysql's JSON text}}.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

type change struct {
	Kind       string  `json:"kind"`
	Op         string  `json:"op"`
	EventType  int     `json:"event_type"`
	TableID    uint64  `json:"table_id"`
	Schema     string  `json:"schema"`
	Table      string  `json:"table"`
	Before     []any   `json:"before"`
	After      []any   `json:"after"`
	BeforeSkip []int   `json:"before_skip"`
	AfterSkip  []int   `json:"after_skip"`
	Row        int     `json:"row"`
	GTID       *string `json:"gtid"`
	XID        *uint64 `json:"xid"`
	File       string  `json:"file"`
	Position   uint32  `json:"position"`
	EventSize  uint32  `json:"event_size"`
	Timestamp  uint32  `json:"timestamp"`
	TxPosition uint32  `json:"transaction_position"`
}

type tableLine struct {
	Kind     string           `json:"kind"`
	TableID  uint64           `json:"table_id"`
	Schema   string           `json:"schema"`
	Table    string           `json:"table"`
	Names    []string         `json:"names"`
	Types    []int            `json:"types"`
	Meta     []uint16         `json:"meta"`
	Signed   bool             `json:"signedness"`
	Unsigned []int            `json:"unsigned"`
	Enum     map[int][]string `json:"enum"`
	Set      map[int][]string `json:"set"`
}

func realType(tp byte, meta uint16) int {
	if tp == mysql.MYSQL_TYPE_STRING && meta >= 256 {
		b0 := byte(meta >> 8)
		if b0&0x30 != 0x30 {
			return int(b0 | 0x30)
		}
		return int(b0)
	}
	return int(tp)
}

func encode(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case float32:
		return float64(x)
	case string:
		if utf8.ValidString(x) {
			return x
		}
		return map[string]string{"$str64": base64.StdEncoding.EncodeToString([]byte(x))}
	case []byte:
		return map[string]string{"$bytes64": base64.StdEncoding.EncodeToString(x)}
	case decimal.Decimal:
		return map[string]string{"$decimal": x.String()}
	case time.Time:
		return map[string]string{"$time": x.Format(time.RFC3339Nano)}
	case *replication.JsonDiff:
		return map[string]any{"$jsondiff": map[string]string{"op": x.Op.String(), "path": x.Path, "value": x.Value}}
	default:
		return v
	}
}

func encodeRow(row []any) []any {
	out := make([]any, len(row))
	for i, v := range row {
		out[i] = encode(v)
	}
	return out
}

func main() {
	host := flag.String("host", "127.0.0.1", "server host")
	port := flag.Int("port", 3306, "server port")
	user := flag.String("user", "root", "user")
	password := flag.String("password", "", "password")
	flavor := flag.String("flavor", "mysql", "mysql or mariadb")
	serverID := flag.Uint("server-id", 1001, "replica server id")
	file := flag.String("file", "", "binlog file to start from (default: the first, from SHOW BINARY LOGS)")
	pos := flag.Uint("pos", 4, "position to start from")
	gtid := flag.String("gtid", "", "start after this GTID set instead of a file/position")
	n := flag.Int("n", 0, "stop after this many row changes (0: only the timeout stops)")
	timeout := flag.Duration("timeout", 60*time.Second, "stop after this long")
	debug := flag.Bool("debug", false, "go-mysql's log on stderr")
	semiSync := flag.Bool("semisync", false, "ask for semi-synchronous replication (SemiSyncEnabled)")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if *debug {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	cfg := replication.BinlogSyncerConfig{
		ServerID:                 uint32(*serverID),
		Flavor:                   *flavor,
		Host:                     *host,
		Port:                     uint16(*port),
		User:                     *user,
		Password:                 *password,
		SemiSyncEnabled:          *semiSync,
		ParseTime:                false,
		TimestampStringLocation:  time.UTC,
		UseDecimal:               false,
		UseFloatWithTrailingZero: false,
		HeartbeatPeriod:          time.Second,
		ReadTimeout:              *timeout + 10*time.Second,
		DisableRetrySync:         true,
		MaxReconnectAttempts:     1,
		Logger:                   logger,
	}
	syncer := replication.NewBinlogSyncer(cfg)
	defer syncer.Close()

	var streamer *replication.BinlogStreamer
	var err error
	if *gtid != "" {
		var set mysql.GTIDSet
		set, err = mysql.ParseGTIDSet(*flavor, *gtid)
		if err == nil {
			streamer, err = syncer.StartSyncGTID(set)
		}
	} else {
		streamer, err = syncer.StartSync(mysql.Position{Name: *file, Pos: uint32(*pos)})
	}
	if err != nil {
		fail(err)
	}

	out := json.NewEncoder(os.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	var (
		curFile = *file
		curGTID *string
		txPos   uint32
		pending []*change
		printed int
		beats   int
		inTxn   bool
	)
	flush := func(xid *uint64) {
		for _, c := range pending {
			if *n > 0 && printed >= *n {
				break
			}
			c.XID = xid
			if err := out.Encode(c); err != nil {
				fail(err)
			}
			printed++
		}
		pending = pending[:0]
	}
	end := func(reason string) {
		flush(nil)
		_ = out.Encode(map[string]any{"kind": "end", "reason": reason, "changes": printed, "heartbeats": beats})
		os.Exit(0)
	}
	// handle processes one event; at is the header of the event in the file: the event
	// itself, or the TRANSACTION_PAYLOAD event carrying it (MySQL binlog_transaction_compression),
	// whose offset and size its changes then report.
	var handle func(ev *replication.BinlogEvent, at *replication.EventHeader)
	handle = func(ev *replication.BinlogEvent, at *replication.EventHeader) {
		h := ev.Header
		start := at.LogPos - at.EventSize
		if h.EventType == replication.HEARTBEAT_EVENT || h.EventType == replication.HEARTBEAT_LOG_EVENT_V2 {
			beats++
		}
		switch e := ev.Event.(type) {
		case *replication.TransactionPayloadEvent:
			for _, inner := range e.Events {
				handle(inner, at)
			}
		case *replication.RotateEvent:
			curFile = string(e.NextLogName)
		case *replication.GTIDEvent:
			flush(nil)
			curGTID, txPos, inTxn = nil, start, true
			if h.EventType != replication.ANONYMOUS_GTID_EVENT {
				s := mysqlGTID(e)
				curGTID = &s
			}
		case *replication.GtidTaggedLogEvent:
			flush(nil)
			s := mysqlGTID(&e.GTIDEvent)
			curGTID, txPos, inTxn = &s, start, true
		case *replication.MariadbGTIDEvent:
			flush(nil)
			s := fmt.Sprintf("%d-%d-%d", e.GTID.DomainID, e.GTID.ServerID, e.GTID.SequenceNumber)
			curGTID, txPos, inTxn = &s, start, true
		case *replication.QueryEvent:
			q := strings.ToUpper(strings.TrimSpace(string(e.Query)))
			if q == "BEGIN" && !inTxn {
				curGTID, txPos, inTxn = nil, start, true
			} else if q == "COMMIT" {
				flush(nil)
				inTxn = false
			}
		case *replication.XIDEvent:
			x := e.XID
			flush(&x)
			inTxn = false
		case *replication.TableMapEvent:
			if err := out.Encode(tableOf(e)); err != nil {
				fail(err)
			}
		case *replication.RowsEvent:
			op := ""
			switch e.Type() {
			case replication.EnumRowsEventTypeInsert:
				op = "insert"
			case replication.EnumRowsEventTypeUpdate:
				op = "update"
			case replication.EnumRowsEventTypeDelete:
				op = "delete"
			default:
				// RowsEvent.Type() has no kind for PARTIAL_UPDATE_ROWS_EVENT (MySQL's
				// binlog_row_value_options=PARTIAL_JSON); go-mysql still parses it into a
				// RowsEvent of before/after row pairs, JSON columns updated in place as a
				// *JsonDiff: a BinlogSyncer user switching on the event type reads it as an
				// update, so this program does too.
				if h.EventType != replication.PARTIAL_UPDATE_ROWS_EVENT {
					return
				}
				op = "update"
			}
			step := 1
			if op == "update" {
				step = 2
			}
			for i := 0; i+step <= len(e.Rows); i += step {
				c := &change{Kind: "change", Op: op, EventType: int(h.EventType), TableID: e.TableID,
					Schema: string(e.Table.Schema), Table: string(e.Table.Table), Row: i / step,
					GTID: curGTID, File: curFile, Position: start, EventSize: at.EventSize,
					Timestamp: h.Timestamp, TxPosition: txPos}
				skip := func(k int) []int {
					if k < len(e.SkippedColumns) {
						return e.SkippedColumns[k]
					}
					return nil
				}
				switch op {
				case "insert":
					c.After, c.AfterSkip = encodeRow(e.Rows[i]), skip(i)
				case "delete":
					c.Before, c.BeforeSkip = encodeRow(e.Rows[i]), skip(i)
				default:
					c.Before, c.BeforeSkip = encodeRow(e.Rows[i]), skip(i)
					c.After, c.AfterSkip = encodeRow(e.Rows[i+1]), skip(i+1)
				}
				pending = append(pending, c)
			}
		}
	}
	for {
		if *n > 0 && printed >= *n {
			end("count")
		}
		ev, err := streamer.GetEvent(ctx)
		if err != nil {
			if ctx.Err() != nil {
				end("timeout")
			}
			fail(err)
		}
		handle(ev, ev.Header)
	}
}

func mysqlGTID(e *replication.GTIDEvent) string {
	u, err := uuid.FromBytes(e.SID)
	if err != nil {
		fail(err)
	}
	if e.Tag != "" {
		return fmt.Sprintf("%s:%s:%d", u.String(), e.Tag, e.GNO)
	}
	return fmt.Sprintf("%s:%d", u.String(), e.GNO)
}

func tableOf(e *replication.TableMapEvent) tableLine {
	t := tableLine{Kind: "table", TableID: e.TableID, Schema: string(e.Schema), Table: string(e.Table),
		Meta: e.ColumnMeta, Enum: e.EnumStrValueMap(), Set: e.SetStrValueMap()}
	if len(e.ColumnName) > 0 {
		t.Names = e.ColumnNameString()
	}
	t.Types = make([]int, len(e.ColumnType))
	for i, tp := range e.ColumnType {
		t.Types[i] = realType(tp, e.ColumnMeta[i])
	}
	t.Signed = len(e.SignednessBitmap) > 0
	unsigned := e.UnsignedMap()
	for i := range e.ColumnType {
		if unsigned[i] {
			t.Unsigned = append(t.Unsigned, i)
		}
	}
	return t
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "gomysql_changes: %v\n", err)
	os.Exit(1)
}
