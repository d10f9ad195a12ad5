# Refresh events: batched (one refresh per target per run, whatever the
# number of events), chained (a refresh sends 'restarted' on), refreshonly
# execs run only when notified, an exec both out of sync and notified runs
# twice, a failed refresh fails the resource and skips its dependents, and a
# running service restarts.
#
# Checked against Puppet 7.23 (`puppet apply --verbose --detailed-exitcodes`,
# with Exec { path => '/usr/bin:/bin' } added, as Puppet wants qualified
# commands, and provider => base on the service): both runs printed the same
# Notice, Info, Warning and Error lines in the same order (resource paths
# shortened to refs), exited 6 both times, and the order file was identical.
# Puppet schedules an arrow's refresh before a metaparameter's and groups a
# resource's events by target, hence the order of the Scheduling lines.
exec { 'src1': command => 'echo src1 >> DIR/order' }
exec { 'src2': command => 'echo src2 >> DIR/order' }
exec { 'batched': command => 'echo batched >> DIR/order', refreshonly => true,
  subscribe => [Exec['src1'], Exec['src2']] }
Exec['src1'] ~> Exec['batched']
exec { 'chained': command => 'echo chained >> DIR/order', refreshonly => true, subscribe => Exec['batched'] }
exec { 'quiet': command => 'echo quiet >> DIR/order', refreshonly => true }
exec { 'twice': command => 'echo twice >> DIR/order', subscribe => Exec['src1'] }
exec { 'custom': command => 'echo custom-run >> DIR/order', refresh => 'echo custom-refresh >> DIR/order',
  subscribe => Exec['src2'] }
exec { 'badrefresh': command => '/bin/false', refreshonly => true, subscribe => Exec['src1'] }
exec { 'after_bad': command => 'echo after_bad >> DIR/order', require => Exec['badrefresh'] }
service { 'svc':
  ensure  => running,
  status  => 'test -f DIR/svc.pid',
  start   => 'touch DIR/svc.pid; echo svc-start >> DIR/order',
  stop    => 'rm -f DIR/svc.pid; echo svc-stop >> DIR/order',
  restart => 'echo svc-restart >> DIR/order',
}
Exec['src2'] ~> Service['svc']
