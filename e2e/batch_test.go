package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/utils/ptr"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
)

// jobTemplate is a pod template that runs to completion.
func jobTemplate(app string) corev1.PodTemplateSpec {
	t := podTemplate(app)
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	return t
}

// TestBatch_ClientGoTypedClientsetServesJobsAndCronJobs does CRUD, watch and status
// updates on Jobs and CronJobs through client-go's typed clientset in JSON and in
// protobuf: a Job gets kube's defaults and its uid-derived selector and labels.
func TestBatch_ClientGoTypedClientsetServesJobsAndCronJobs(t *testing.T) {
	srv := newBuiltinServer(t)
	for _, ct := range builtinContentTypes {
		t.Run(ct, func(t *testing.T) {
			cs, _ := contentTypeClientset(t, srv, ct)
			batch := cs.BatchV1()
			suffix := map[bool]string{true: "-pb", false: ""}[strings.Contains(ct, "protobuf")]
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			t.Run("jobs", func(t *testing.T) {
				name := "pi" + suffix
				crudWatch(t, batch.Jobs("default"), &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: batchv1.JobSpec{Template: jobTemplate("pi")}}, name,
					func(j *batchv1.Job) {
						uid := string(j.UID)
						if j.Spec.Selector == nil || j.Spec.Selector.MatchLabels["batch.kubernetes.io/controller-uid"] != uid ||
							j.Spec.Template.Labels["controller-uid"] != uid || j.Labels["batch.kubernetes.io/job-name"] != name {
							t.Errorf("stored job lacks the generated selector and labels: selector %v, labels %v, template labels %v",
								j.Spec.Selector, j.Labels, j.Spec.Template.Labels)
						}
						if ptr.Deref(j.Spec.BackoffLimit, 0) != 6 || ptr.Deref(j.Spec.Completions, 0) != 1 || ptr.Deref(j.Spec.CompletionMode, "") != batchv1.NonIndexedCompletion {
							t.Errorf("stored job spec lacks kube's defaults: %+v", j.Spec)
						}
						j.Spec.Parallelism = ptr.To[int32](2)
					})
				j, err := batch.Jobs("default").Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name + "-s"},
					Spec: batchv1.JobSpec{Template: jobTemplate("pi")}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				now := metav1.NewTime(time.Now().Truncate(time.Second))
				j.Status = batchv1.JobStatus{StartTime: &now, Active: 1, Ready: ptr.To[int32](1)}
				j.Spec.Parallelism = ptr.To[int32](9)
				if j, err = batch.Jobs("default").UpdateStatus(ctx, j, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				if j.Status.Active != 1 || ptr.Deref(j.Spec.Parallelism, 0) != 1 {
					t.Errorf("after the status update: active %d, parallelism %v; want 1 and 1", j.Status.Active, j.Spec.Parallelism)
				}
				j.Status.Ready = ptr.To[int32](2)
				if _, err := batch.Jobs("default").UpdateStatus(ctx, j, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "cannot set more ready pods than active") {
					t.Errorf("more ready than active: %v, want kube's 422", err)
				}
			})
			t.Run("cronjobs", func(t *testing.T) {
				name := "hello" + suffix
				crudWatch(t, batch.CronJobs("default"), &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: jobTemplate("hello")}}}}, name,
					func(c *batchv1.CronJob) {
						if c.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent || ptr.Deref(c.Spec.SuccessfulJobsHistoryLimit, 0) != 3 {
							t.Errorf("stored cronjob spec lacks kube's defaults: %+v", c.Spec)
						}
						c.Spec.Schedule = "@hourly"
					})
				c, err := batch.CronJobs("default").Create(ctx, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name + "-s"},
					Spec: batchv1.CronJobSpec{Schedule: "@daily", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: jobTemplate("hello")}}}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				now := metav1.NewTime(time.Now().Truncate(time.Second))
				c.Status.LastScheduleTime = &now
				if c, err = batch.CronJobs("default").UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				if c.Status.LastScheduleTime == nil || !c.Status.LastScheduleTime.Equal(&now) {
					t.Errorf("lastScheduleTime after the status update: %v, want %v", c.Status.LastScheduleTime, now)
				}
				c.Spec.Schedule = "TZ=UTC 0 0 * * *"
				if _, err := batch.CronJobs("default").Update(ctx, c, metav1.UpdateOptions{}); err == nil ||
					!strings.Contains(err.Error(), "cannot use TZ or CRON_TZ in schedule, use timeZone field instead") {
					t.Errorf("a TZ schedule: %v, want kube's 422", err)
				}
			})
		})
	}
}

// TestBatch_InformersSync starts client-go informers over Jobs and CronJobs in protobuf
// and waits until both have synced and the Jobs one has seen its object.
func TestBatch_InformersSync(t *testing.T) {
	srv := newBuiltinServer(t)
	cs, _ := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.BatchV1().Jobs("default").Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "inf"},
		Spec: batchv1.JobSpec{Template: jobTemplate("inf")}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	jobs := factory.Batch().V1().Jobs().Informer()
	_ = factory.Batch().V1().CronJobs().Informer()
	factory.Start(ctx.Done())
	// Shutdown waits for the informers, which stop when ctx ends: cancel first.
	defer func() { cancel(); factory.Shutdown() }()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Errorf("informer of %v did not sync", typ)
		}
	}
	if _, ok, err := jobs.GetStore().GetByKey("default/inf"); !ok || err != nil {
		t.Errorf("the jobs informer lacks default/inf: %v", err)
	}
}

// TestBatch_ControllerRuntimeClient drives a suspended Job through controller-runtime's
// client over protobuf as a queueing controller (kueue) does: it changes the suspended
// Job's node selector (which kube allows before the Job starts), resumes it, writes its
// status, and is refused a template change of the running Job.
func TestBatch_ControllerRuntimeClient(t *testing.T) {
	srv := newBuiltinServer(t)
	_, cfg := contentTypeClientset(t, srv, "application/vnd.kubernetes.protobuf")
	c, err := ctrlclient.New(cfg, ctrlclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "queued", Namespace: "default"},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: jobTemplate("queued")}}
	if err := c.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	patch := []byte(`{"spec":{"template":{"spec":{"nodeSelector":{"pool":"batch"}}}}}`)
	if err := c.Patch(ctx, j, ctrlclient.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
		t.Fatalf("node selector of a suspended job: %v", err)
	}
	if err := c.Patch(ctx, j, ctrlclient.RawPatch(types.MergePatchType, []byte(`{"spec":{"suspend":false}}`))); err != nil {
		t.Fatal(err)
	}
	if j.Generation != 3 || j.Spec.Template.Spec.NodeSelector["pool"] != "batch" {
		t.Errorf("after two spec patches: generation %d, node selector %v; want 3 and pool=batch", j.Generation, j.Spec.Template.Spec.NodeSelector)
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	j.Status = batchv1.JobStatus{StartTime: &now, Active: 1}
	if err := c.Status().Update(ctx, j); err != nil {
		t.Fatal(err)
	}
	err = c.Patch(ctx, j, ctrlclient.RawPatch(types.StrategicMergePatchType, []byte(`{"spec":{"template":{"spec":{"nodeSelector":{"pool":"other"}}}}}`)))
	if err == nil || !strings.Contains(err.Error(), "spec.template: Invalid value:") || !strings.Contains(err.Error(), "field is immutable") {
		t.Errorf("template change of a running job: %v, want kube's field is immutable", err)
	}
}

// TestBatch_Kubectl creates a Job and a CronJob with kubectl and reads them back with
// kube's columns (get jobs -o wide, get cj by its short name).
func TestBatch_Kubectl(t *testing.T) {
	srv := newBuiltinServer(t)
	es := &exampleServer{KubeconfigPath: srv.KubeconfigPath}
	path := filepath.Join(t.TempDir(), "batch.yaml")
	manifest := `apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: perl:5.34
        command: ["perl", "-Mbignum=bpi", "-wle", "print bpi(200)"]
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "*/5 * * * *"
  timeZone: UTC
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: hello
            image: busybox
`
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	es.mustKubectl(t, "apply", "-f", path)
	out := es.mustKubectl(t, "get", "jobs", "-o", "wide")
	lines := strings.Split(strings.TrimSpace(out.Stdout), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME STATUS COMPLETIONS DURATION AGE CONTAINERS IMAGES SELECTOR" {
		t.Fatalf("kubectl get jobs -o wide:\n%s", out.Stdout)
	}
	// DURATION is empty before the job starts: the row has one field fewer.
	if f := strings.Fields(lines[1]); len(f) != 7 || f[0] != "pi" || f[1] != "Running" || f[2] != "0/3" || f[4] != "pi" || f[5] != "perl:5.34" ||
		!strings.HasPrefix(f[6], "batch.kubernetes.io/controller-uid=") {
		t.Errorf("row %q", lines[1])
	}
	out = es.mustKubectl(t, "get", "cj")
	lines = strings.Split(strings.TrimSpace(out.Stdout), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE" {
		t.Fatalf("kubectl get cj:\n%s", out.Stdout)
	}
	if f := strings.Fields(lines[1]); len(f) != 11 || f[0] != "hello" || strings.Join(f[1:6], " ") != "*/5 * * * *" || f[6] != "UTC" || f[7] != "False" || f[8] != "0" || f[9] != "<none>" {
		t.Errorf("row %q", lines[1])
	}
	out = es.mustKubectl(t, "get", "all", "-o", "name")
	if got := out.Stdout; !strings.Contains(got, "job.batch/pi") || !strings.Contains(got, "cronjob.batch/hello") {
		t.Errorf("kubectl get all lacks the job and the cronjob:\n%s", got)
	}
}
