# Providers touching the real system. exec: path, cwd, environment,
# creates, onlyif, unless, returns, timeout (kills the process group),
# logoutput. file: ensure file/directory/link/absent, content, mode.
# service: start/stop commands and status. notify: message.
file { 'DIR/work': ensure => directory, mode => '0750' }
exec { 'in-cwd': command => 'pwd >> DIR/order', cwd => 'DIR/work' }
exec { 'by-path': command => 'mytool', path => ['DIR/bin', '/usr/bin', '/bin'], environment => 'ORDER=DIR/order',
  require => File['DIR/bin/mytool'] }
file { 'DIR/bin': ensure => directory }
file { 'DIR/bin/mytool': ensure => file, mode => '0755', content => "#!/bin/sh\necho by-path >> \"\$ORDER\"\n" }
exec { 'env': command => 'echo "env $GREETING $OTHER" >> DIR/order', environment => ['GREETING=hello', 'OTHER=x=y'] }
exec { 'created': command => 'echo created >> DIR/order; touch DIR/created', creates => 'DIR/created' }
exec { 'onlyif-false': command => 'echo onlyif-false >> DIR/order', onlyif => '/bin/false' }
exec { 'unless-true': command => 'echo unless-true >> DIR/order', unless => ['/bin/false', '/bin/true'] }
exec { 'slow': command => 'echo slow >> DIR/order; sleep 30; echo never >> DIR/order', timeout => 1 }
exec { 'chatty': command => 'echo line one; echo line two', logoutput => true }
exec { 'failing-output': command => 'echo oops; exit 5' }
file { 'DIR/conf': ensure => file, content => "setting = 1\n", mode => '0600' }
file { 'DIR/link': ensure => link, target => 'DIR/conf' }
file { 'DIR/gone': ensure => absent }
service { 'daemon':
  ensure => stopped,
  status => 'test -f DIR/daemon.pid',
  start  => 'touch DIR/daemon.pid',
  stop   => 'rm DIR/daemon.pid; echo daemon-stop >> DIR/order',
}
notify { 'note': message => 'all done' }
