package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestRowBatchLikeRowByRow writes rows through rowBatch, whose statements
// carry 64, 16, 4 or 1 rows, and checks the table against what inserting
// them one at a time gives: every row, in order (the rowids), a repeated
// key's upsert keeping its first row and its last values.
func TestRowBatchLikeRowByRow(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 5, 17, 63, 64, 65, 150, 333} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ctx := context.Background()
			d, err := Open(filepath.Join(t.TempDir(), "index.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if _, err := d.db.ExecContext(ctx, `CREATE TABLE probe (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, v INTEGER NOT NULL, s TEXT)`); err != nil {
				t.Fatal(err)
			}
			tx, err := d.db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			sc := &stmtCache{ctx: ctx, d: d, tx: tx}
			defer sc.close()
			b := rowBatch{sc: sc, head: `INSERT INTO probe (k, v, s) VALUES `, tail: ` ON CONFLICT (k) DO UPDATE SET v = excluded.v, s = excluded.s`, cols: 3}
			type row struct {
				k string
				v int
				s any
			}
			var want []row
			at := map[string]int{}
			for i := range n {
				// Every seventh row repeats an earlier key; some values are NULL.
				k := fmt.Sprintf("k%d", i)
				if i%7 == 6 {
					k = fmt.Sprintf("k%d", i/2)
				}
				var s any = fmt.Sprintf("s%d", i)
				if i%5 == 0 {
					s = nil
				}
				if err := b.add(k, i, s); err != nil {
					t.Fatal(err)
				}
				if j, ok := at[k]; ok {
					want[j].v, want[j].s = i, s
				} else {
					at[k] = len(want)
					want = append(want, row{k, i, s})
				}
			}
			if err := b.flush(); err != nil {
				t.Fatal(err)
			}
			rows, err := tx.QueryContext(ctx, `SELECT k, v, s FROM probe ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var got []row
			for rows.Next() {
				var r row
				var s *string
				if err := rows.Scan(&r.k, &r.v, &s); err != nil {
					t.Fatal(err)
				}
				if s != nil {
					r.s = *s
				}
				got = append(got, r)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("row %d = %v, want %v", i, got[i], want[i])
				}
			}
			if len(b.args) != 0 {
				t.Errorf("%d values still queued after flush", len(b.args))
			}
		})
	}
}
