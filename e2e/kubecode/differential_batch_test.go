package kubecode

import (
	"regexp"
	"testing"
)

// Each side's uids: the in-process kube run numbers them (Server.Create), apikit
// generates random version 4 UUIDs.
var (
	kubeUID   = regexp.MustCompile(`kube-uid-[0-9]+`)
	apikitUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)
)

// A Job's generated selector and labels carry its uid, which each side assigns: they are
// compared by shape, with each side's uid replaced by one placeholder in the stored
// object and in the 422 causes.
func init() {
	intendedDifferences = append(intendedDifferences, intendedDifference{
		name: "a Job's uid in its generated selector and labels",
		why: "kube's Job strategy puts the object's uid in spec.selector and in the controller-uid labels of the Job " +
			"and its template (and in the messages of validateGeneratedSelector); the two servers assign different " +
			"uids, so each side's uid is replaced by <uid> before the objects and causes are compared.",
		applies: func(c Case, kube, apikit *Result) bool {
			return c.Kind == "Job" && (kubeUID.Match(kube.Object) || apikitUID.Match(apikit.Object) || causesHave(kube, kubeUID) || causesHave(apikit, apikitUID))
		},
		normalize: func(kube, apikit *Result) {
			for _, s := range []struct {
				r  *Result
				re *regexp.Regexp
			}{{kube, kubeUID}, {apikit, apikitUID}} {
				s.r.Object = s.re.ReplaceAll(s.r.Object, []byte("<uid>"))
				for i := range s.r.Causes {
					s.r.Causes[i].Message = s.re.ReplaceAllString(s.r.Causes[i].Message, "<uid>")
				}
			}
		},
	})
}

func causesHave(r *Result, re *regexp.Regexp) bool {
	for _, c := range r.Causes {
		if re.MatchString(c.Message) {
			return true
		}
	}
	return false
}

// TestDifferential_BatchV1 feeds generated Jobs and CronJobs, valid and invalid, creates
// and updates, to k8s.io/kubernetes v1.37.2's code and to apikit, and compares the stored
// objects and the 422 causes.
func TestDifferential_BatchV1(t *testing.T) {
	differential(t, []string{"Job", "CronJob"})
}
