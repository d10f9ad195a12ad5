node 'web1' { }
exec { 'x': command => }
$h = @("EOT")
  text
  EOT
@@exec { 'exported': command => '/bin/e' }
Exec['a'] { command => '/bin/b' }
class child inherits base { }
function f() { }
notify { 'ok': message => "unterminated }
