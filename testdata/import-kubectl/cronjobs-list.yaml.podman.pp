# Imported from cronjobs-list.yaml by `almanac import cronjob`.

# cronjobs-list.yaml: document 1 item 1: CronJob db-backup (batch/v1)
# namespace: prod
job { 'prod-db-backup':
  cron                          => '15 3 * * *',
  cron_dialect                  => 'kubernetes',
  time_zone                     => 'Europe/Berlin',
  command                       => 'podman run --rm --env BUCKET --env PGHOST --entrypoint /usr/local/bin/pg-backup -- registry.example.com/pg-backup:2.3 --all --target s3://backups/db &
pid1=$!
podman run --rm --pull always --env BUCKET=logs --entrypoint /usr/local/bin/ship-logs -- registry.example.com/log-shipper:1.0 &
pid2=$!
status=0
wait "$pid1" || status=1
wait "$pid2" || status=1
exit "$status"',
  env                           => { 'BUCKET' => 'backups', 'PGHOST' => 'db.prod' },
  concurrency_policy            => 'Allow',
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
  backoff_limit                 => 6,
}

# cronjobs-list.yaml: document 1 item 2: CronJob reindex (batch/v1)
# namespace: search
# spec.schedule "0 0 31 2 *" never fires (February has no day 31): the CronJob is run only by hand, so this is a manual job: almanac trigger search-reindex
job { 'search-reindex':
  manual                        => true,
  command                       => ['podman', 'run', '--rm', '--entrypoint', '/opt/search/bin/reindex', '--', 'registry.example.com/search-tools:5.1', '--full'],
  concurrency_policy            => 'Forbid',
  suspend                       => true,
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
  backoff_limit                 => 0,
}

# cronjobs-list.yaml: document 1 item 3: CronJob cache-warm (batch/v1)
# namespace: web
# not imported: container field resources
job { 'web-cache-warm':
  cron                          => '*/10 * * * *',
  cron_dialect                  => 'kubernetes',
  time_zone                     => 'UTC',
  command                       => ['podman', 'run', '--rm', '--entrypoint', '/usr/local/bin/warm-cache', '--', 'registry.example.com/web:9.4'],
  concurrency_policy            => 'Allow',
  successful_jobs_history_limit => 3,
  failed_jobs_history_limit     => 1,
  backoff_limit                 => 6,
}
