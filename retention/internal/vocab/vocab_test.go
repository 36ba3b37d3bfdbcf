package vocab

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

func source(t *testing.T, encoding string) map[string]int {
	t.Helper()
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(Files[encoding][1])
	if err != nil {
		t.Fatal(err)
	}
	return ranks
}

// forEachTable runs fn on each encoding's table beside tiktoken-go's ranks.
func forEachTable(t *testing.T, fn func(t *testing.T, ranks map[string]int, tab *Table)) {
	for enc := range Files {
		t.Run(enc, func(t *testing.T) {
			tab, err := Load(enc)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, source(t, enc), tab)
		})
	}
}

// The committed tables must be exactly what the generator writes from
// tiktoken-go's vocabularies today: this fails when either changed without
// `go generate ./retention/internal/vocab`.
func TestTablesAreGeneratedFromTiktoken(t *testing.T) {
	for enc := range Files {
		t.Run(enc, func(t *testing.T) {
			ranks := source(t, enc)
			want, err := Build(ranks)
			if err != nil {
				t.Fatal(err)
			}
			if got := Embedded(enc); got != string(want) {
				t.Fatalf("%s is stale (%d bytes, the generator writes %d): run go generate ./retention/internal/vocab",
					Files[enc][0], len(got), len(want))
			}
		})
	}
}

// Every string of two bytes, token or not, has the rank tiktoken-go gives
// it: Rank answers those from its pair array, not the hash table.
func TestTwoByteRanksAgreeWithTiktoken(t *testing.T) {
	forEachTable(t, func(t *testing.T, ranks map[string]int, tab *Table) {
		tokens := 0
		for k := range 1 << 16 {
			s := string([]byte{byte(k >> 8), byte(k)})
			want, wok := ranks[s]
			got, ok := tab.Rank(s)
			if ok != wok || got != want {
				t.Fatalf("Rank(%q) = %d, %v; tiktoken %d, %v", s, got, ok, want, wok)
			}
			if h, hok := tab.hashRank(s); hok != ok || h != got {
				t.Fatalf("Rank(%q) = %d, %v from the pairs, %d, %v from the hash table", s, got, ok, h, hok)
			}
			if ok {
				tokens++
			}
		}
		if tokens < 1000 {
			t.Fatalf("%d two-byte tokens, fewer than the vocabulary holds: the comparison above saw almost no tokens", tokens)
		}
	})
}

// Every token of tiktoken-go's vocabulary is found at its rank and decodes
// to its bytes; strings that are not tokens are not found.
func TestTablesAgreeWithTiktoken(t *testing.T) {
	forEachTable(t, func(t *testing.T, ranks map[string]int, tab *Table) {
		maxLen, maxRank := 0, 0
		for tok, r := range ranks {
			if got, ok := tab.Rank(tok); !ok || got != r {
				t.Fatalf("Rank(%q) = %d, %v; tiktoken %d", tok, got, ok, r)
			}
			if got := tab.Token(r); got != tok {
				t.Fatalf("Token(%d) = %q, tiktoken %q", r, got, tok)
			}
			maxLen, maxRank = max(maxLen, len(tok)), max(maxRank, r)
		}
		// The merges start from single bytes, so each must be a token.
		for b := range 256 {
			if _, ok := tab.Rank(string([]byte{byte(b)})); !ok {
				t.Fatalf("byte %#x is not a token", b)
			}
		}
		if tab.MaxLen() != maxLen || tab.Ranks() != maxRank+1 {
			t.Fatalf("MaxLen %d, Ranks %d; tiktoken %d, %d", tab.MaxLen(), tab.Ranks(), maxLen, maxRank+1)
		}
		r := rand.New(rand.NewSource(1))
		misses := 0
		for tok := range ranks {
			// Neighbours of real tokens: one byte longer, shorter or changed.
			for _, s := range []string{tok + string(rune('a'+r.Intn(26))), tok[:len(tok)-1], string(byte(r.Intn(256))) + tok[1:]} {
				want, in := ranks[s]
				got, ok := tab.Rank(s)
				if ok != in || got != want {
					t.Fatalf("Rank(%q) = %d, %v; tiktoken %d, %v", s, got, ok, want, in)
				}
				if !in {
					misses++
				}
			}
		}
		if misses == 0 {
			t.Fatal("no string outside the vocabulary was tried")
		}
	})
}

// Map iteration order differs between runs; the layout must not.
func TestBuildIsDeterministic(t *testing.T) {
	ranks := source(t, "cl100k_base")
	a, err := Build(ranks)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Build(ranks)
	if !bytes.Equal(a, b) {
		t.Fatal("two builds of the same vocabulary differ")
	}
}

func TestBuildAndOpenReject(t *testing.T) {
	if _, err := Build(map[string]int{"a": 0, "b": 0}); err == nil {
		t.Error("two tokens with one rank were accepted")
	}
	if _, err := Build(map[string]int{"": 1}); err == nil {
		t.Error("an empty token was accepted")
	}
	good, err := Build(map[string]int{"a": 0, "b": 1, "ab": 3})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Open(string(good))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := tab.Rank("ab"); !ok || r != 3 || tab.Token(2) != "" {
		t.Fatalf("small table: Rank(ab) = %d, %v; Token(2) = %q", r, ok, tab.Token(2))
	}
	for name, data := range map[string]string{
		"empty":     "",
		"magic":     "XXVOCAB1" + string(good[8:]),
		"truncated": string(good[:len(good)-1]),
		"longer":    string(good) + "x",
	} {
		if _, err := Open(data); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: Open = %v, want ErrFormat", name, err)
		}
	}
	if _, err := Load("p50k_base"); !errors.Is(err, ErrEncoding) {
		t.Errorf("Load(p50k_base) = %v, want ErrEncoding", err)
	}
}

func BenchmarkRank(b *testing.B) {
	tab, err := Load("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	words := []string{" the", "ing", "hello", " wor", "ld", "zzqx", "中文", "aaaaaaaa", " ", "\n\n"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tab.Rank(words[i%len(words)])
	}
}
