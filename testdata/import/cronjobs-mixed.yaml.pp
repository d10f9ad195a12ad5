# Imported from cronjobs-mixed.yaml by `almanac import cronjob`.

# cronjobs-mixed.yaml: document 1: CronJob cleanup (batch/v1)
# namespace: staging
# not imported: image tools:1 (the command runs on the host, not in the image)
# not imported: env TOKEN (valueFrom: a secret, config map or field reference)
job { 'staging-cleanup':
  cron          => '0 0 */2 * 1',
  cron_dialect  => 'kubernetes',
  time_zone     => 'UTC',
  command       => ['/usr/local/bin/cleanup', '--bucket', 'scratch-eu-west-1', '--cost', '$(not expanded)', '$(TOKEN)'],
  env           => { 'BUCKET' => 'scratch-eu-west-1', 'REGION' => 'eu-west-1' },
  backoff_limit => 6,
}

# cronjobs-mixed.yaml: document 2: CronJob cleanup (batch/v1)
# namespace: prod
job { 'prod-cleanup':
  cron          => '30 1 * * *',
  cron_dialect  => 'kubernetes',
  time_zone     => 'America/New_York',
  command       => ['/usr/local/bin/cleanup'],
  backoff_limit => 6,
}

# cronjobs-mixed.yaml:50: document 3: not imported: found unexpected end of stream

# cronjobs-mixed.yaml: document 4: CronJob after-the-broken-one (batch/v1)
job { 'after-the-broken-one':
  cron          => '15 10 * * 1-5',
  cron_dialect  => 'kubernetes',
  time_zone     => 'UTC',
  command       => ['/usr/bin/report'],
  backoff_limit => 6,
}
