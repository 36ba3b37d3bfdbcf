package retention

// The tiktoken encodings as estimators: what OpenAI's tokenizers would count,
// with no framing per block. They wrap the core's model of each encoding
// (tokens.go) and its prefix and suffix tables (textindex.go), so a cut
// search tokenizes only the windows it needs.

type tiktokenEstimator struct{ m *model }

func init() {
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		RegisterEstimator(enc, func() (Estimator, error) {
			m, err := getModel(enc)
			if err != nil {
				return nil, err
			}
			return tiktokenEstimator{m}, nil
		})
	}
}

func (e tiktokenEstimator) Name() string { return e.m.name }

func (e tiktokenEstimator) Count(text string) int { return e.m.count(text) }

// Structural has no price: a tokenizer says nothing about how a provider
// frames a block it does not read as text.
func (tiktokenEstimator) Structural([]byte) (int, bool) { return 0, false }

func (e tiktokenEstimator) Prepare(text string) TextCost {
	return &tiktokenText{x: newTextIndex(e.m, text)}
}

type tiktokenText struct{ x *textIndex }

func (t *tiktokenText) Total() int { return t.x.total() }

// AtMost walks the window levels of the prefix table: each level's bound is
// exact up to its last final piece boundary, so the answer depends only on
// the text and limit, never on what earlier calls tokenized.
func (t *tiktokenText) AtMost(limit int) (int, bool) {
	if lb := t.x.byteLowerBound(); lb > limit {
		return lb, false
	}
	if limit >= len(t.x.text) {
		// No text costs more tokens than it has bytes: the walk would end
		// at the exact total, which is counted without building tables.
		return t.x.total(), true
	}
	for l := 0; ; l++ {
		b, exact := t.x.levelBound(l)
		if exact {
			return b, true
		}
		if b > limit {
			return b, false
		}
	}
}

func (t *tiktokenText) Prefix(budget int) (int, int) {
	if n, exact := t.AtMost(budget); exact && n <= budget {
		return len(t.x.text), n
	}
	return t.x.headCut(budget)
}

func (t *tiktokenText) Suffix(budget, from int) (int, int) { return t.x.tailCut(budget, from) }
