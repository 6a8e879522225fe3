package limit

import (
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// CELCostLimit bounds the cost of one CEL condition. Compilation rejects an
// expression whose estimated worst case exceeds it, assuming one descriptor
// of at most celMaxEntries entries whose keys and values are at most
// celMaxString bytes; evaluation stops at it (the condition is then false).
const CELCostLimit = 100_000

const (
	celMaxEntries = 64
	celMaxString  = 4096
)

// celEnv is the one CEL environment, built on first use. It is immutable.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(cel.Variable("descriptors", cel.ListType(cel.MapType(cel.StringType, cel.StringType))))
})

func compileCEL(src string) (cel.Program, error) {
	env, err := celEnv()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		msgs := make([]string, 0, len(iss.Errors()))
		for _, e := range iss.Errors() {
			msgs = append(msgs, fmt.Sprintf("%s (column %d)", e.Message, e.Location.Column()+1))
		}
		return nil, fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	if !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, fmt.Errorf("must evaluate to a bool, not %s", ast.OutputType())
	}
	est, err := env.EstimateCost(ast, costEstimator{})
	if err != nil {
		return nil, fmt.Errorf("estimating cost: %w", err)
	}
	if est.Max > CELCostLimit {
		return nil, fmt.Errorf("estimated cost %d exceeds the limit %d", est.Max, CELCostLimit)
	}
	return env.Program(ast, cel.CostLimit(CELCostLimit), cel.EvalOptions(cel.OptOptimize))
}

// costEstimator bounds the sizes of descriptors for cost estimation.
type costEstimator struct{}

// EstimateSize bounds descriptors, their maps and their strings.
func (costEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	switch p := n.Path(); {
	case len(p) == 1 && p[0] == "descriptors":
		return &checker.SizeEstimate{Min: 0, Max: 1}
	case len(p) == 2 && p[0] == "descriptors":
		return &checker.SizeEstimate{Min: 0, Max: celMaxEntries}
	case len(p) == 3 && p[0] == "descriptors":
		return &checker.SizeEstimate{Min: 0, Max: celMaxString}
	}
	return nil
}

// EstimateCallCost leaves every call to cel-go's own estimates.
func (costEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// activation binds descriptors to a one-element list holding the entries of
// the descriptor being evaluated. The list is built on first use and shared
// by every CEL condition evaluated for that descriptor.
type activation struct {
	entries []Entry
	list    ref.Val
}

var _ interpreter.Activation = (*activation)(nil)

// ResolveName resolves descriptors; nothing else is bound.
func (a *activation) ResolveName(name string) (any, bool) {
	if name != "descriptors" {
		return nil, false
	}
	if a.list == nil {
		m := make(map[string]string, len(a.entries))
		for _, e := range a.entries {
			m[e.Key] = e.Value
		}
		a.list = types.DefaultTypeAdapter.NativeToValue([]map[string]string{m})
	}
	return a.list, true
}

// Parent returns nil: the activation has no parent.
func (a *activation) Parent() interpreter.Activation { return nil }

// reset prepares a for another descriptor.
func (a *activation) reset(entries []Entry) {
	a.entries = entries
	a.list = nil
}
