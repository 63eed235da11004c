module github.com/binlogwriter/conformance/gomysql

go 1.23.0

require (
	github.com/go-mysql-org/go-mysql v1.13.0
	github.com/google/uuid v1.3.0
	github.com/shopspring/decimal v1.2.0
)

require (
	filippo.io/edwards25519 v1.1.0 // indirect
	github.com/goccy/go-json v0.10.2 // indirect
	github.com/klauspost/compress v1.17.8 // indirect
	github.com/pingcap/errors v0.11.5-0.20250318082626-8f80e5cb09ec // indirect
	github.com/pingcap/log v1.1.1-0.20241212030209-7e3ff8601a2a // indirect
	github.com/pingcap/tidb/pkg/parser v0.0.0-20250421232622-526b2c79173d // indirect
	go.uber.org/atomic v1.11.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.0 // indirect
	golang.org/x/text v0.24.0 // indirect
	gopkg.in/natefinch/lumberjack.v2 v2.2.1 // indirect
)
