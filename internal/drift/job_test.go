package drift_test

import (
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// batchJob is a Job a CronJob created.
type batchJob struct{ ns, name, cron string }

func (j *batchJob) object() *batchv1.Job {
	yes := true
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: j.ns, Name: j.name,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: j.cron, Controller: &yes}}}}
}
