node 'web1' inherits base { }
exec { 'x': command => }
$h = @("EOT"/q)
  text
  EOT
@@exec { 'exported': command => '/bin/e' }
Exec['a'] { command => '/bin/b' }
class child inherits base { }
function f() { }
notify { 'ok': message => "unterminated }
