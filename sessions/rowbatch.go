package sessions

import (
	"strings"
	"sync"
)

// rowBatch gathers the rows of one INSERT and writes several in each
// statement: a row alone costs a trip through database/sql and cgo, its
// arguments converted and bound one call each, which for the many small
// rows of a file (tool calls, model calls, links) cost more than SQLite's
// own work. SQLite inserts the rows of one statement in their order, each
// as its own INSERT would (an upsert's conflict and OR REPLACE included), so
// the table ends the same as row by row.
//
// The statement text is built from the constant head and tail and
// placeholders only; every value is bound.
type rowBatch struct {
	sc   *stmtCache
	head string // "INSERT ... (columns) VALUES "
	tail string // what follows the rows ("" or an ON CONFLICT clause)
	cols int
	args []any
}

// batchSizes are the row counts a statement is prepared for, largest
// first: a file's rows go in the largest that fit, so each table needs at
// most four statements however many rows a file has. 64 rows of the widest
// table (11 columns) bind 704 values, well under SQLite's limit.
var batchSizes = [...]int{64, 16, 4, 1}

// add queues one row, whose values are in the columns' order, writing the
// queued rows when a full statement's worth is waiting.
func (b *rowBatch) add(vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) >= batchSizes[0]*b.cols {
		return b.flush()
	}
	return nil
}

// flush writes every queued row.
func (b *rowBatch) flush() error {
	args := b.args
	for _, n := range batchSizes {
		for len(args) >= n*b.cols {
			if err := b.sc.exec(batchSQL(b.head, b.tail, b.cols, n), args[:n*b.cols]...); err != nil {
				b.args = b.args[:0]
				return err
			}
			args = args[n*b.cols:]
		}
	}
	clear(b.args)
	b.args = b.args[:0]
	return nil
}

type batchKey struct {
	head, tail string
	cols, rows int
}

// batchTexts are the statements batchSQL built, so a flush builds none.
var batchTexts sync.Map // batchKey -> string

// batchSQL is head, rows groups of cols placeholders, then tail.
func batchSQL(head, tail string, cols, rows int) string {
	k := batchKey{head, tail, cols, rows}
	if q, ok := batchTexts.Load(k); ok {
		return q.(string)
	}
	group := "(" + strings.Repeat("?, ", cols-1) + "?)"
	var sb strings.Builder
	sb.WriteString(head)
	for i := range rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(group)
	}
	sb.WriteString(tail)
	q, _ := batchTexts.LoadOrStore(k, sb.String())
	return q.(string)
}
