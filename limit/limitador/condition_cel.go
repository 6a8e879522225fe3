package limitador

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	celast "github.com/google/cel-go/common/ast"
)

// CELCostLimit bounds the cost of one CEL condition or variable.
// Compilation rejects an expression whose estimated worst case exceeds it,
// assuming at most celMaxDescriptors descriptors of at most celMaxEntries
// entries whose keys and values are at most celMaxString bytes; evaluation
// stops at it (a condition is then false, a variable unresolved).
const CELCostLimit = 100_000

const (
	celMaxDescriptors = 8
	celMaxEntries     = 64
	celMaxString      = 4096
)

// celEnv is the CEL environment of conditions and variables, built on first
// use and immutable: descriptors is a list of string maps, limit a map with
// the limit's name and id (null when unset), as limitador 2.x binds them.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("descriptors", cel.ListType(cel.MapType(cel.StringType, cel.StringType))),
		cel.Variable("limit", cel.MapType(cel.StringType, cel.DynType)))
})

// celLenientEnv types descriptor values as dyn. It compiles only
// expressions that select a field of an entry's value
// (descriptors[0].req.method), which type-check nowhere else but load in
// limitador, whose CEL is not type-checked; they never match.
var celLenientEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("descriptors", cel.ListType(cel.MapType(cel.StringType, cel.DynType))),
		cel.Variable("limit", cel.MapType(cel.StringType, cel.DynType)))
})

// celResult says what an expression must evaluate to.
type celResult uint8

const (
	celBool   celResult = iota // a condition
	celScalar                  // a variable: a string, number, bool or null
)

// compileCEL compiles src. For an expression that can never match (a field
// selected on an entry's value) it returns a program with a warning that
// shows the expression limitador users mean to write.
func compileCEL(src string, want celResult) (prg cel.Program, warning string, err error) {
	env, err := celEnv()
	if err != nil {
		return nil, "", err
	}
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		parsed, piss := env.Parse(src)
		if piss.Err() == nil {
			if dotted := dottedSelections(parsed); len(dotted) > 0 {
				lenient, lerr := celLenientEnv()
				if lerr != nil {
					return nil, "", lerr
				}
				if last, liss := lenient.Compile(src); liss.Err() == nil {
					env, ast, iss = lenient, last, liss
					warning = fmt.Sprintf("%s can never match: an entry's value is a string and has no fields; for a key with dots write %s",
						strings.Join(dotted, ", "), strings.Join(bracketForms(parsed), ", "))
				}
			}
		}
	}
	if iss.Err() != nil {
		msgs := make([]string, 0, len(iss.Errors()))
		for _, e := range iss.Errors() {
			msgs = append(msgs, fmt.Sprintf("%s (column %d)", e.Message, e.Location.Column()+1))
		}
		return nil, "", fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	out := ast.OutputType()
	switch want {
	case celBool:
		if !out.IsExactType(cel.BoolType) {
			return nil, "", fmt.Errorf("must evaluate to a bool, not %s", out)
		}
	case celScalar:
		ok := false
		for _, t := range []*cel.Type{cel.StringType, cel.IntType, cel.UintType, cel.DoubleType, cel.BoolType, cel.NullType, cel.DynType} {
			ok = ok || out.IsExactType(t)
		}
		if !ok {
			return nil, "", fmt.Errorf("must evaluate to a string, a number or a bool, not %s", out)
		}
	}
	est, err := env.EstimateCost(ast, costEstimator{})
	if err != nil {
		return nil, "", fmt.Errorf("estimating cost: %w", err)
	}
	if est.Max > CELCostLimit {
		return nil, "", fmt.Errorf("estimated cost %d exceeds the limit %d", est.Max, CELCostLimit)
	}
	prg, err = env.Program(ast, cel.CostLimit(CELCostLimit), cel.EvalOptions(cel.OptOptimize))
	return prg, warning, err
}

// dottedSelection is a chain of field selections on a descriptor,
// descriptors[index].a.b.c, of at least two fields.
type dottedSelection struct {
	index  string // the index's source: a number, or "..."
	fields []string
}

// dottedChains returns the outermost chains of two or more field selections
// rooted at descriptors[...], in source order.
func dottedChains(parsed *cel.Ast) []dottedSelection {
	var selects []celast.Expr
	inner := map[int64]bool{}
	celast.PreOrderVisit(parsed.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() != celast.SelectKind {
			return
		}
		selects = append(selects, e)
		if op := e.AsSelect().Operand(); op.Kind() == celast.SelectKind {
			inner[op.ID()] = true
		}
	}))
	var out []dottedSelection
	for _, s := range selects {
		if inner[s.ID()] {
			continue
		}
		var fields []string
		e := s
		for e.Kind() == celast.SelectKind {
			fields = append([]string{e.AsSelect().FieldName()}, fields...)
			e = e.AsSelect().Operand()
		}
		if len(fields) < 2 || e.Kind() != celast.CallKind || e.AsCall().FunctionName() != "_[_]" {
			continue
		}
		args := e.AsCall().Args()
		if len(args) != 2 || args[0].Kind() != celast.IdentKind || args[0].AsIdent() != "descriptors" {
			continue
		}
		index := "..."
		if args[1].Kind() == celast.LiteralKind {
			if v, ok := args[1].AsLiteral().Value().(int64); ok {
				index = strconv.FormatInt(v, 10)
			}
		}
		out = append(out, dottedSelection{index: index, fields: fields})
	}
	return out
}

// dottedSelections returns the chains of dottedChains as written.
func dottedSelections(parsed *cel.Ast) []string {
	var out []string
	for _, d := range dottedChains(parsed) {
		out = append(out, "descriptors["+d.index+"]."+strings.Join(d.fields, "."))
	}
	return out
}

// bracketForms returns the chains of dottedChains with their fields as one
// key in brackets: descriptors[0]['req.method'].
func bracketForms(parsed *cel.Ast) []string {
	var out []string
	for _, d := range dottedChains(parsed) {
		out = append(out, "descriptors["+d.index+"]['"+strings.Join(d.fields, ".")+"']")
	}
	return out
}

// costEstimator bounds the sizes of descriptors and limit for cost
// estimation.
type costEstimator struct{}

// EstimateSize bounds descriptors, their maps and their strings.
func (costEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	switch p := n.Path(); {
	case len(p) == 1 && p[0] == "descriptors":
		return &checker.SizeEstimate{Min: 0, Max: celMaxDescriptors}
	case len(p) == 2 && p[0] == "descriptors":
		return &checker.SizeEstimate{Min: 0, Max: celMaxEntries}
	case len(p) == 3 && p[0] == "descriptors":
		return &checker.SizeEstimate{Min: 0, Max: celMaxString}
	case len(p) == 1 && p[0] == "limit":
		return &checker.SizeEstimate{Min: 0, Max: 2}
	case len(p) == 2 && p[0] == "limit":
		return &checker.SizeEstimate{Min: 0, Max: celMaxString}
	}
	return nil
}

// EstimateCallCost leaves every call to cel-go's own estimates.
func (costEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
