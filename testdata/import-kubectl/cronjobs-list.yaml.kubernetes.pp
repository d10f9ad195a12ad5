# Imported from cronjobs-list.yaml by `almanac import cronjob`.

# cronjobs-list.yaml: document 1 item 1: CronJob db-backup (batch/v1), run as Kubernetes Jobs
job { 'prod-db-backup':
  cron                          => '15 3 * * *',
  cron_dialect                  => 'kubernetes',
  time_zone                     => 'Europe/Berlin',
  kubernetes                    => {
    namespace    => 'prod',
    job_template => 'metadata:
  creationTimestamp: null
spec:
  template:
    metadata:
      creationTimestamp: null
    spec:
      containers:
        - args:
            - --all
            - --target
            - s3://backups/db
          command:
            - /usr/local/bin/pg-backup
          env:
            - name: BUCKET
              value: backups
            - name: PGHOST
              value: db.prod
          image: registry.example.com/pg-backup:2.3
          imagePullPolicy: IfNotPresent
          name: backup
          resources: {}
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
        - command:
            - /usr/local/bin/ship-logs
          env:
            - name: BUCKET
              value: logs
          image: registry.example.com/log-shipper:1.0
          imagePullPolicy: Always
          name: ship-logs
          resources: {}
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: OnFailure
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30
',
  },
  concurrency_policy            => 'Allow',
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
}

# cronjobs-list.yaml: document 1 item 2: CronJob reindex (batch/v1), run as Kubernetes Jobs
# spec.schedule "0 0 31 2 *" never fires (February has no day 31): the CronJob is run only by hand, so this is a manual job: almanac trigger search-reindex
job { 'search-reindex':
  manual                        => true,
  kubernetes                    => {
    namespace    => 'search',
    job_template => 'metadata:
  creationTimestamp: null
spec:
  backoffLimit: 0
  template:
    metadata:
      creationTimestamp: null
    spec:
      containers:
        - command:
            - /opt/search/bin/reindex
            - --full
          image: registry.example.com/search-tools:5.1
          imagePullPolicy: IfNotPresent
          name: reindex
          resources: {}
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Never
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30
',
  },
  concurrency_policy            => 'Forbid',
  suspend                       => true,
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
}

# cronjobs-list.yaml: document 1 item 3: CronJob cache-warm (batch/v1), run as Kubernetes Jobs
job { 'web-cache-warm':
  cron                          => '*/10 * * * *',
  cron_dialect                  => 'kubernetes',
  time_zone                     => 'UTC',
  kubernetes                    => {
    namespace    => 'web',
    job_template => 'metadata:
  creationTimestamp: null
spec:
  template:
    metadata:
      creationTimestamp: null
    spec:
      containers:
        - command:
            - /usr/local/bin/warm-cache
          image: registry.example.com/web:9.4
          imagePullPolicy: IfNotPresent
          name: warm
          resources:
            limits:
              memory: 256Mi
          terminationMessagePath: /dev/termination-log
          terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: OnFailure
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30
',
  },
  concurrency_policy            => 'Allow',
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
}
