package controller

// This file is apikit's, not the scaffold's: it prints how long the suite's nodes ran
// (BeforeSuite holds the Environment's Start), from Ginkgo's own report, so the same
// suite can be timed on apikit's envtest and on controller-runtime's.

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

var _ = ReportAfterSuite("timings", func(r Report) {
	for _, s := range r.SpecReports {
		name := s.LeafNodeType.String()
		if s.LeafNodeType == types.NodeTypeIt {
			name = s.FullText()
		}
		fmt.Printf("timing: %-12s %8.1f ms  %s\n", s.State, float64(s.RunTime.Microseconds())/1000, name)
	}
	fmt.Printf("timing: suite %s %.1f ms\n", r.SuiteDescription, float64(r.RunTime.Microseconds())/1000)
})
