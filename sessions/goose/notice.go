package goose

import "spillscope/retention"

// Notice kinds the index records: the retention core's names for goose's
// conventions (retention.RecogniseGooseNotice recognises them). Both
// wordings of the large-response sentence are one convention.
const (
	// NoticeLargeResponse is large_response_handler.rs's sentence for a
	// text item over 200,000 characters, current or older.
	NoticeLargeResponse = retention.GooseCurrent
	// NoticeSavedOutput is the saved-output variant's sentence.
	NoticeSavedOutput = retention.GooseSavedOutput
)

// NoticeKind is the index's kind of a recognised sentence.
func NoticeKind(n retention.GooseNotice) string {
	if n.Kind == retention.GooseOlder {
		return NoticeLargeResponse
	}
	return n.Kind
}
