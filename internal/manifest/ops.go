package manifest

// This file holds the operators and punctuation: their kinds, texts and
// the lookup tables the lexer uses.

// Op names an operator or punctuation token; OpNone is the Op of every
// token that is not PUNCT.
type Op uint8

// Operators, in the order of puncts.
const (
	OpNone            Op = iota
	OpLLCollect          // <<|
	OpRRCollect          // |>>
	OpLCollect           // <|
	OpRCollect           // |>
	OpArrow              // ->
	OpNotifyArrow        // ~>
	OpBackArrow          // <-
	OpBackNotifyArrow    // <~
	OpFatArrow           // =>
	OpPlusArrow          // +>
	OpPlusAssign         // +=
	OpMinusAssign        // -=
	OpEq                 // ==
	OpNe                 // !=
	OpMatch              // =~
	OpNoMatch            // !~
	OpLe                 // <=
	OpGe                 // >=
	OpShl                // <<
	OpShr                // >>
	OpAtAt               // @@
	OpAtParen            // @(
	OpLt                 // <
	OpGt                 // >
	OpAssign             // =
	OpPlus               // +
	OpMinus              // -
	OpStar               // *
	OpSlash              // /
	OpPercent            // %
	OpNot                // !
	OpQuestion           // ?
	OpColon              // :
	OpComma              // ,
	OpSemicolon          // ;
	OpLBrace             // {
	OpRBrace             // }
	OpLParen             // (
	OpRParen             // )
	OpLBracket           // [
	OpRBracket           // ]
	OpPipe               // |
	OpAt                 // @
	OpDot                // .
)

// opTexts maps each Op to its text.
var opTexts = [...]string{OpLLCollect: "<<|", OpRRCollect: "|>>", OpLCollect: "<|", OpRCollect: "|>", OpArrow: "->", OpNotifyArrow: "~>", OpBackArrow: "<-", OpBackNotifyArrow: "<~", OpFatArrow: "=>", OpPlusArrow: "+>", OpPlusAssign: "+=", OpMinusAssign: "-=", OpEq: "==", OpNe: "!=", OpMatch: "=~", OpNoMatch: "!~", OpLe: "<=", OpGe: ">=", OpShl: "<<", OpShr: ">>", OpAtAt: "@@", OpAtParen: "@(", OpLt: "<", OpGt: ">", OpAssign: "=", OpPlus: "+", OpMinus: "-", OpStar: "*", OpSlash: "/", OpPercent: "%", OpNot: "!", OpQuestion: "?", OpColon: ":", OpComma: ",", OpSemicolon: ";", OpLBrace: "{", OpRBrace: "}", OpLParen: "(", OpRParen: ")", OpLBracket: "[", OpRBracket: "]", OpPipe: "|", OpAt: "@", OpDot: "."}

// String returns the operator as written.
func (o Op) String() string {
	if int(o) < len(opTexts) {
		return opTexts[o]
	}
	return "?"
}

// opOf returns the Op written as text, OpNone for anything else. It is on
// the lexer's hot path, hence the tables.
func opOf(text string) Op {
	switch len(text) {
	case 1:
		return ops1[text[0]]
	case 2:
		return ops2[text[0]][text[1]]
	case 3:
		switch text {
		case "<<|":
			return OpLLCollect
		case "|>>":
			return OpRRCollect
		}
	}
	return OpNone
}

// ops1 and ops2 index the one- and two-character operators by their bytes.
var ops1, ops2 = func() (*[256]Op, *[256][256]Op) {
	var one [256]Op
	var two [256][256]Op
	for o, t := range opTexts {
		switch len(t) {
		case 1:
			one[t[0]] = Op(o)
		case 2:
			two[t[0]][t[1]] = Op(o)
		}
	}
	return &one, &two
}()

// punct is a PUNCT token for the operator text at source offset off.
func punct(off int32, text string) Token {
	return Token{Kind: PUNCT, Op: opOf(text), Off: off, Start: off, End: off + int32(len(text))}
}

// puncts lists operators, longest first so that the first match wins.
var puncts = []string{
	"<<|", "|>>",
	"<|", "|>", "->", "~>", "<-", "<~", "=>", "+>", "+=", "-=", "==", "!=", "=~", "!~", "<=", ">=", "<<", ">>", "@@", "@(",
	"<", ">", "=", "+", "-", "*", "/", "%", "!", "?", ":", ",", ";", "{", "}", "(", ")", "[", "]", "|", "@", ".",
}

// singlePuncts maps a byte to its one-character operator; punctSecond marks
// bytes that may continue a longer operator.
var singlePuncts, punctSecond = func() ([256]string, [256]bool) {
	var single [256]string
	var second [256]bool
	for _, p := range puncts {
		if len(p) == 1 {
			single[p[0]] = p
		} else {
			for i := 1; i < len(p); i++ {
				second[p[i]] = true
			}
		}
	}
	return single, second
}()

// matchPunct returns the longest operator at the current offset, or "".
func (lx *lexer) matchPunct() string {
	rest := lx.src[lx.off:]
	if len(rest) == 1 || len(rest) > 1 && !punctSecond[rest[1]] {
		if op := singlePuncts[rest[0]]; op != "" {
			return op
		}
	}
	for _, cand := range puncts {
		if len(rest) >= len(cand) && string(rest[:len(cand)]) == cand {
			return cand
		}
	}
	return ""
}
