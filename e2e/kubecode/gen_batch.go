package kubecode

import (
	"math/rand/v2"
	"strings"
)

// The batch/v1 kinds plug into the generator: Jobs in four shapes (NonIndexed, Indexed
// with per-index backoff and a success policy, a manual selector, a pod failure policy)
// and CronJobs with a schedule, time zone and job template; both take the metadata and
// pod spec mutations.
func init() {
	kindBases["Job"] = func(r *rand.Rand, o Object, name string, labels Object) {
		o["apiVersion"] = "batch/v1"
		o["spec"] = jobSpec(r, name, labels, true)
	}
	kindBases["CronJob"] = func(r *rand.Rand, o Object, name string, labels Object) {
		o["apiVersion"] = "batch/v1"
		spec := Object{
			"schedule":    pick(r, []string{"*/5 * * * *", "@hourly", "0 9-17 * * MON-FRI", "15,45 */2 1-15 jan,jul ?", "@every 90m"}),
			"jobTemplate": Object{"metadata": Object{"labels": clone(labels)}, "spec": jobSpec(r, name, labels, false)},
		}
		switch r.IntN(3) {
		case 0:
			spec["timeZone"] = pick(r, []string{"Europe/Berlin", "America/New_York", "UTC", "Etc/GMT+2"})
			spec["concurrencyPolicy"] = pick(r, []string{"Allow", "Forbid", "Replace"})
		case 1:
			spec["startingDeadlineSeconds"] = 200
			spec["successfulJobsHistoryLimit"] = 5
			spec["failedJobsHistoryLimit"] = 0
			spec["suspend"] = r.IntN(2) == 0
		}
		o["spec"] = spec
	}
	templatePaths["CronJob"] = []any{"spec", "jobTemplate", "spec", "template"}
	updateBodies["Job"] = jobUpdateBody
	templateImmutable = append(templateImmutable, "Job")
	allKinds = append(allKinds, "Job", "CronJob")
	withPodSpec = append(withPodSpec, "Job", "CronJob")
	kindMutations = append(kindMutations, batchMutations)
}

// jobSpec is a Job's spec in one of its shapes; a CronJob's job template (job false) has
// no manual selector.
func jobSpec(r *rand.Rand, name string, labels Object, job bool) Object {
	tmpl := PodTemplate(r, name, labels)
	ps := at(tmpl, "spec")
	ps["restartPolicy"] = pick(r, []string{"Never", "OnFailure"})
	spec := Object{"template": tmpl}
	shapes := 3
	if job {
		shapes = 4
	}
	switch r.IntN(shapes) {
	case 0:
		spec["backoffLimit"] = 3
		spec["activeDeadlineSeconds"] = 600
		spec["ttlSecondsAfterFinished"] = 100
	case 1:
		spec["completionMode"] = "Indexed"
		spec["completions"] = 5
		spec["parallelism"] = 5
		spec["backoffLimitPerIndex"] = 1
		spec["maxFailedIndexes"] = 2
		spec["successPolicy"] = Object{"rules": []any{Object{"succeededIndexes": "0-2,4", "succeededCount": 3}}}
	case 2:
		ps["restartPolicy"] = "Never"
		spec["podFailurePolicy"] = Object{"rules": []any{
			Object{"action": "FailJob", "onExitCodes": Object{"containerName": "c0", "operator": "In", "values": []any{1, 42}}},
			Object{"action": "Ignore", "onPodConditions": []any{Object{"type": "DisruptionTarget"}}},
			Object{"action": "Count", "onExitCodes": Object{"operator": "NotIn", "values": []any{0, 3}}},
		}}
	case 3:
		spec["manualSelector"] = true
		spec["selector"] = Object{"matchLabels": clone(labels)}
		spec["suspend"] = true
	}
	return spec
}

// jobSpecOf is the Job spec of a Job or a CronJob's job template.
func jobSpecOf(o Object) Object {
	if o["kind"] == "CronJob" {
		return at(o, "spec", "jobTemplate", "spec")
	}
	return at(o, "spec")
}

func batchMutations() []Mutation {
	batch := []string{"Job", "CronJob"}
	jobs := []string{"Job"}
	cron := []string{"CronJob"}
	return []Mutation{
		// Valid.
		{Name: "omit job fields", Kinds: batch, Apply: func(_ *rand.Rand, o Object) {
			s := jobSpecOf(o)
			for _, k := range []string{"backoffLimit", "completions", "parallelism", "completionMode", "suspend"} {
				delete(s, k)
			}
			if _, ok := s["podFailurePolicy"]; !ok {
				delete(s, "backoffLimitPerIndex")
				delete(s, "maxFailedIndexes")
				delete(s, "successPolicy")
			}
		}},
		{Name: "parallel job without completions", Kinds: batch, Apply: func(r *rand.Rand, o Object) {
			s := jobSpecOf(o)
			if s["completionMode"] == "Indexed" {
				return
			}
			delete(s, "completions")
			s["parallelism"] = 1 + r.IntN(4)
		}},
		{Name: "pod failure policy condition status omitted", Kinds: batch, ImmutableIn: jobs, Apply: func(_ *rand.Rand, o Object) {
			s := jobSpecOf(o)
			podSpecOf(o)["restartPolicy"] = "Never"
			s["podFailurePolicy"] = Object{"rules": []any{Object{"action": "FailJob", "onPodConditions": []any{Object{"type": "ConfigIssue"}}}}}
			s["podReplacementPolicy"] = "Failed"
		}},
		{Name: "managed by another controller", Kinds: jobs, ImmutableIn: jobs, Apply: func(_ *rand.Rand, o Object) {
			jobSpecOf(o)["managedBy"] = "kueue.x-k8s.io/multikueue"
		}},
		{Name: "schedule variants", Kinds: cron, Apply: func(r *rand.Rand, o Object) {
			at(o, "spec")["schedule"] = pick(r, []string{"0 0 * * 0", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight",
				"*/15 * * * *", "0 0 1-7/2 * *", "5 4 * * SUN", "0 22 * * 1-5", "? ? ? ? ?", "@every 1h30m", "59 23 31 12 6"})
		}},
		{Name: "concurrency forbidden with a deadline", Kinds: cron, Apply: func(_ *rand.Rand, o Object) {
			at(o, "spec")["concurrencyPolicy"] = "Forbid"
			at(o, "spec")["startingDeadlineSeconds"] = 0
		}},
		{Name: "no labels on the template", Kinds: jobs, Apply: func(_ *rand.Rand, o Object) {
			s := jobSpecOf(o)
			if s["manualSelector"] == true {
				return
			}
			delete(at(s, "template", "metadata"), "labels")
			delete(at(o, "metadata"), "labels")
		}},

		// Invalid.
		{Name: "negative job counts", Invalid: true, Kinds: batch, Apply: func(r *rand.Rand, o Object) {
			s := jobSpecOf(o)
			s[pick(r, []string{"parallelism", "completions", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"})] = -1
		}},
		{Name: "job restartPolicy Always", Invalid: true, Kinds: batch, Apply: func(r *rand.Rand, o Object) {
			podSpecOf(o)["restartPolicy"] = pick(r, []string{"Always", "Sometimes"})
		}},
		{Name: "bad completion mode", Invalid: true, Kinds: batch, Apply: func(r *rand.Rand, o Object) {
			s := jobSpecOf(o)
			switch r.IntN(3) {
			case 0:
				s["completionMode"] = "Sequential"
			case 1:
				s["completionMode"] = "Indexed"
				delete(s, "completions")
				// kube's validateSuccessPolicyRule dereferences the missing completions
				// and panics (kube-apiserver answers 500): not generated, see
				// TestValidateJob_IndexedSuccessPolicyWithoutCompletionsIs422.
				delete(s, "successPolicy")
			default:
				s["completionMode"] = "NonIndexed"
				s["backoffLimitPerIndex"] = 2
				s["maxFailedIndexes"] = 1
			}
		}},
		{Name: "indexed job limits", Invalid: true, Kinds: batch, Apply: func(r *rand.Rand, o Object) {
			s := jobSpecOf(o)
			s["completionMode"] = "Indexed"
			switch r.IntN(3) {
			case 0:
				s["completions"] = 200000
				s["parallelism"] = 20000
				s["backoffLimitPerIndex"] = 1
				s["maxFailedIndexes"] = 20000
			case 1:
				s["completions"] = 3
				s["parallelism"] = 200000
				s["maxFailedIndexes"] = 4
			default:
				s["completions"] = 4
				s["successPolicy"] = Object{"rules": []any{Object{"succeededIndexes": pick(r, []string{"3-1", "0,0", "9", "a-b", "1-2-3"}), "succeededCount": 5}, Object{}}}
			}
		}},
		{Name: "success policy without indexed mode", Invalid: true, Kinds: batch, Apply: func(_ *rand.Rand, o Object) {
			s := jobSpecOf(o)
			s["completionMode"] = "NonIndexed"
			delete(s, "backoffLimitPerIndex")
			delete(s, "maxFailedIndexes")
			s["successPolicy"] = Object{"rules": []any{Object{"succeededCount": 1}}}
		}},
		{Name: "bad pod failure policy", Invalid: true, Kinds: batch, Apply: func(r *rand.Rand, o Object) {
			s := jobSpecOf(o)
			rules := []any{
				Object{"action": pick(r, []string{"", "Retry", "FailIndex"}), "onExitCodes": Object{"operator": "In", "values": []any{5, 0, 5}}},
				Object{"action": "Ignore", "onExitCodes": Object{"operator": "", "containerName": "missing", "values": []any{}},
					"onPodConditions": []any{Object{"type": "Bad Type", "status": "Maybe"}}},
				Object{"action": "Count"},
			}
			s["podFailurePolicy"] = Object{"rules": rules}
			if r.IntN(2) == 0 {
				s["podReplacementPolicy"] = "TerminatingOrFailed"
			} else {
				podSpecOf(o)["restartPolicy"] = "OnFailure"
			}
		}},
		{Name: "bad pod replacement policy", Invalid: true, Kinds: batch, Apply: func(_ *rand.Rand, o Object) {
			jobSpecOf(o)["podReplacementPolicy"] = "Sometimes"
		}},
		{Name: "bad managedBy", Invalid: true, Kinds: jobs, Apply: func(r *rand.Rand, o Object) {
			jobSpecOf(o)["managedBy"] = pick(r, []string{"", "no-slash", "Bad_Host/x", "example.com/has space", "example.com/" + strings.Repeat("p", 60)})
		}},
		{Name: "indexed job name too long for its hostnames", Invalid: true, Kinds: jobs, Apply: func(_ *rand.Rand, o Object) {
			name := at(o, "metadata")["name"].(string)
			at(o, "metadata")["name"] = name + strings.Repeat("n", 62-len(name))
			s := jobSpecOf(o)
			s["completionMode"] = "Indexed"
			s["completions"] = 12
			s["parallelism"] = 3
		}},
		{Name: "selector without manualSelector", Invalid: true, Kinds: jobs, Apply: func(r *rand.Rand, o Object) {
			s := jobSpecOf(o)
			s["manualSelector"] = false
			s["selector"] = Object{"matchLabels": Object{"app": at(o, "metadata")["name"]}}
			if r.IntN(2) == 0 {
				at(s, "template", "metadata", "labels")["job-name"] = "other"
			}
		}},
		{Name: "manual selector that does not match", Invalid: true, Kinds: jobs, Apply: func(_ *rand.Rand, o Object) {
			s := jobSpecOf(o)
			s["manualSelector"] = true
			s["selector"] = Object{"matchLabels": Object{"app": "other"}, "matchExpressions": []any{Object{"key": "tier", "operator": "In"}}}
		}},
		{Name: "bad schedule", Invalid: true, Kinds: cron, Apply: func(r *rand.Rand, o Object) {
			at(o, "spec")["schedule"] = pick(r, []string{"0 * * * * *", "61 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 7",
				"5-1 * * * *", "*/0 * * * *", "a * * * *", "1-2-3 * * * *", "1/2/3 * * * *", "-1 * * * *", "@fortnightly", "@every abc",
				"TZ=UTC * * * * *", "CRON_TZ=Mars/Olympus * * * * *", "TZ=0", "CRON_TZ=Europe/Berlin 0 0 * * *", "* * * * FOO", ""})
		}},
		{Name: "bad time zone", Invalid: true, Kinds: cron, Apply: func(r *rand.Rand, o Object) {
			at(o, "spec")["timeZone"] = pick(r, []string{"", "Local", "local", "Mars/Olympus", "../etc/passwd", "Europe/-Berlin", "America/Argentina/Buenos_Aires_Extra_Long", "Etc/GMT+99"})
		}},
		{Name: "bad cronjob policy", Invalid: true, Kinds: cron, Apply: func(r *rand.Rand, o Object) {
			s := at(o, "spec")
			switch r.IntN(3) {
			case 0:
				s["concurrencyPolicy"] = "Sometimes"
			case 1:
				s["startingDeadlineSeconds"] = -5
			default:
				s["successfulJobsHistoryLimit"] = -1
				s["failedJobsHistoryLimit"] = -2
			}
		}},
		{Name: "selector in a job template", Invalid: true, Kinds: cron, Apply: func(r *rand.Rand, o Object) {
			s := jobSpecOf(o)
			if r.IntN(2) == 0 {
				s["selector"] = Object{"matchLabels": Object{"app": "x"}}
			} else {
				s["manualSelector"] = true
			}
		}},
		{Name: "cronjob name over 52 characters", Invalid: true, Kinds: cron, Apply: func(_ *rand.Rand, o Object) {
			name := at(o, "metadata")["name"].(string)
			at(o, "metadata")["name"] = name + strings.Repeat("c", 53-len(name))
		}},

		// Update only.
		{Name: "job template changed", UpdateOnly: true, Kinds: jobs, Apply: func(r *rand.Rand, o Object) {
			ps := podSpecOf(o)
			switch r.IntN(3) {
			case 0:
				ps["nodeSelector"] = Object{"pool": "batch"}
			case 1:
				firstContainer(o)["resources"] = Object{"requests": Object{"cpu": "3"}, "limits": Object{"cpu": "4"}}
			default:
				ps["activeDeadlineSeconds"] = 30
			}
		}},
		{Name: "job immutable field changed", UpdateOnly: true, Kinds: jobs, Apply: func(r *rand.Rand, o Object) {
			s := jobSpecOf(o)
			switch r.IntN(4) {
			case 0:
				s["completions"] = 7
			case 1:
				if s["completionMode"] == "Indexed" {
					s["completionMode"] = "NonIndexed"
				} else {
					s["completionMode"] = "Indexed"
				}
			case 2:
				s["podFailurePolicy"] = Object{"rules": []any{Object{"action": "FailJob", "onExitCodes": Object{"operator": "In", "values": []any{9}}}}}
				podSpecOf(o)["restartPolicy"] = "Never"
			default:
				s["completions"] = 8
				s["parallelism"] = 8
			}
		}},
		{Name: "cronjob schedule and time zone changed", UpdateOnly: true, Kinds: cron, Apply: func(r *rand.Rand, o Object) {
			s := at(o, "spec")
			s["schedule"] = pick(r, []string{"0 1 * * *", "TZ=UTC 0 1 * * *"})
			s["timeZone"] = pick(r, []string{"Asia/Tokyo", "Local"})
		}},
	}
}

// generatedJobLabels are the labels kube's Job strategy generates on a Job's template.
var generatedJobLabels = []string{"batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name", "controller-uid", "job-name"}

// jobUpdateBody is a client's update of a stored Job: its manifest, with the selector and
// the template labels the server generated at the create (a client that reads, changes
// and writes back the Job keeps them; the template is immutable, its selector too).
func jobUpdateBody(stored, body Object) Object {
	spec, _ := stored["spec"].(Object)
	if spec == nil || spec["manualSelector"] == true {
		return body
	}
	bspec, _ := body["spec"].(Object)
	if bspec == nil {
		return body
	}
	if _, ok := bspec["selector"]; !ok && spec["selector"] != nil {
		bspec["selector"] = cloneAny(spec["selector"])
	}
	storedTmpl, _ := spec["template"].(Object)
	storedMeta, _ := storedTmpl["metadata"].(Object)
	storedLabels, _ := storedMeta["labels"].(Object)
	tmpl, _ := bspec["template"].(Object)
	if tmpl == nil {
		return body
	}
	meta, _ := tmpl["metadata"].(Object)
	if meta == nil {
		meta = Object{}
		tmpl["metadata"] = meta
	}
	labels, _ := meta["labels"].(Object)
	if labels == nil {
		labels = Object{}
	}
	for _, k := range generatedJobLabels {
		if v, ok := storedLabels[k]; ok {
			labels[k] = v
		}
	}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	return body
}
