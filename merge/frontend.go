package merge

import (
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// NewFrontend returns the Frontend of a PluginConfig's descriptor engine.
func NewFrontend(engine *descriptor.Engine) policyapi.Frontend {
	return &engineFrontend{engine: engine}
}

type engineFrontend struct {
	engine *descriptor.Engine
	res    descriptor.Result
}

func (f *engineFrontend) Generate(in *policyapi.Request, out *rlsmsg.Request, trace *strings.Builder) bool {
	req := in.Descriptor()
	res := &f.res
	if trace != nil {
		var tr *descriptor.Trace
		res, tr = f.engine.Explain(&req)
		trace.WriteString(tr.String())
	} else {
		f.engine.GenerateInto(&req, res)
	}
	*out = res.Request
	return res.ShouldCall()
}
