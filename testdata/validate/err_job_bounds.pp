# Jobs whose values are out of bounds: each is refused here, as the API
# would refuse it, instead of being accepted and then unreachable.
job { 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa':
  cron    => '0 3 * * *',
  command => ['/usr/bin/true'],
}
job { 'retry-forever':
  cron          => '0 4 * * *',
  command       => ['/usr/bin/true'],
  backoff_limit => 1000000,
}
job { 'never-late':
  cron                      => '0 5 * * *',
  command                   => ['/usr/bin/true'],
  starting_deadline_seconds => 10000000000,
}
