# tries and try_sleep: a command that fails once and then succeeds is a
# success (its dependents run, exit 2); one that fails every time runs
# `tries` times and fails (exit 6 with the success).
Exec { path => '/usr/bin:/bin' }
exec { 'flaky':
  command   => "sh -c 'echo flaky >> DIR/order; test -e DIR/flaky-ok || { touch DIR/flaky-ok; exit 1; }'",
  tries     => 3,
  try_sleep => 1,
}
exec { 'after_flaky': command => 'echo after_flaky >> DIR/order', require => Exec['flaky'] }
exec { 'listener': command => 'echo listener >> DIR/order', refreshonly => true, subscribe => Exec['flaky'] }
exec { 'broken':
  command => "sh -c 'echo broken >> DIR/order; exit 1'",
  tries   => 3,
  require => Exec['listener'],
}
exec { 'after_broken': command => 'echo after_broken >> DIR/order', require => Exec['broken'] }
