# A failure skips its dependents transitively; the "has failures" notice is
# printed once per failed resource, the warning once per skipped resource.
# Resources that do not depend on a failure still run.
exec { 'fail': command => '/bin/false' }
exec { 'fail2': command => 'exit 3', returns => [0, 1] }
exec { 'after_fail': command => 'echo after_fail >> DIR/order', require => Exec['fail'] }
exec { 'after_after': command => 'echo after_after >> DIR/order', require => Exec['after_fail'] }
exec { 'both': command => 'echo both >> DIR/order', require => [Exec['fail'], Exec['fail2']] }
exec { 'free': command => 'echo free >> DIR/order' }
exec { 'ok_returns': command => 'echo ok_returns >> DIR/order; exit 2', returns => [0, 2] }
