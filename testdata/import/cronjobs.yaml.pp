# Imported from cronjobs.yaml by `almanac import cronjob`.

# cronjobs.yaml: document 1: CronJob nightly-backup (batch/v1)
# namespace: prod
# not imported: image registry.example.com/backup:1.4 (the command runs on the host, not in the image)
# not imported: container field volumeMounts
# not imported: pod field volumes
# not imported: env AWS_SECRET_ACCESS_KEY (valueFrom: a secret, config map or field reference)
job { 'prod-nightly-backup':
  cron                          => '30 2 * * *',
  cron_dialect                  => 'kubernetes',
  time_zone                     => 'Europe/Berlin',
  command                       => ['/usr/local/bin/backup', '--all', '--target', 's3://backups/nightly'],
  env                           => { 'LOG_LEVEL' => 'info' },
  cwd                           => '/srv/backup',
  starting_deadline_seconds     => 300,
  concurrency_policy            => 'Forbid',
  successful_jobs_history_limit => 5,
  failed_jobs_history_limit     => 2,
  backoff_limit                 => 2,
  timeout                       => 3600,
}

# cronjobs.yaml: document 3: ScheduledJob pi (batch/v2alpha1)
# not imported: image perl (the command runs on the host, not in the image)
job { 'pi':
  cron               => '0 * * * ?',
  cron_dialect       => 'kubernetes',
  time_zone          => 'UTC',
  command            => ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'],
  concurrency_policy => 'Replace',
  suspend            => true,
  backoff_limit      => 6,
}

# cronjobs.yaml: document 4: CronJob report (batch/v1beta1)
# not imported: image reporter:latest (the command runs on the host, not in the image)
# not imported: container 2 (sidecar): without --container-runtime only the first container runs, on the host
job { 'report':
  cron          => '0 9 * * 1-5',
  cron_dialect  => 'kubernetes',
  time_zone     => 'America/New_York',
  command       => ['sh', '-c', 'generate-report --daily | mail -s daily team@example.com'],
  backoff_limit => 6,
}

# cronjobs.yaml:88: document 5 (CronJob entrypoint-only): not imported
