# Variables: top scope, class scope, qualified names, local scopes and
# match variables.
$top = 'top value'
class web ($port = 8080) {
  $docroot = '/srv/www'
  notify { 'web vars': message => "${top} ${::top} ${port} ${docroot}" }
}
include web
notify { 'qualified': message => "${web::port} ${web::docroot}" }
if 'web-42' =~ /^web-(\d+)$/ {
  notify { 'match': message => "${0} ${1} $1" }
}
$x = [1, 2].map |$x| { $x * 10 }
notify { 'shadow': message => $x }
