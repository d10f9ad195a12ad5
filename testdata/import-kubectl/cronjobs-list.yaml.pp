# Imported from cronjobs-list.yaml by `almanac import cronjob`.

# cronjobs-list.yaml: document 1 item 1: CronJob db-backup (batch/v1)
# namespace: prod
# not imported: image registry.example.com/pg-backup:2.3 (the command runs on the host, not in the image)
# not imported: container 2 (ship-logs): without --container-runtime only the first container runs, on the host
job { 'prod-db-backup':
  cron                          => '15 3 * * *',
  cron_dialect                  => 'kubernetes',
  time_zone                     => 'Europe/Berlin',
  command                       => ['/usr/local/bin/pg-backup', '--all', '--target', 's3://backups/db'],
  env                           => { 'BUCKET' => 'backups', 'PGHOST' => 'db.prod' },
  concurrency_policy            => 'Allow',
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
  backoff_limit                 => 6,
}

# cronjobs-list.yaml: document 1 item 2: CronJob reindex (batch/v1)
# namespace: search
# not imported: image registry.example.com/search-tools:5.1 (the command runs on the host, not in the image)
# spec.schedule "0 0 31 2 *" never fires (February has no day 31): the CronJob is run only by hand, so this is a manual job: almanac trigger search-reindex
job { 'search-reindex':
  manual                        => true,
  command                       => ['/opt/search/bin/reindex', '--full'],
  concurrency_policy            => 'Forbid',
  suspend                       => true,
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
  backoff_limit                 => 0,
}

# cronjobs-list.yaml: document 1 item 3: CronJob cache-warm (batch/v1)
# namespace: web
# not imported: image registry.example.com/web:9.4 (the command runs on the host, not in the image)
# not imported: container field resources
job { 'web-cache-warm':
  cron                          => '*/10 * * * *',
  cron_dialect                  => 'kubernetes',
  time_zone                     => 'UTC',
  command                       => ['/usr/local/bin/warm-cache'],
  concurrency_policy            => 'Allow',
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
  backoff_limit                 => 6,
}
