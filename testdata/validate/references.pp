# References: capitalized types, one or several titles, class titles are
# case-insensitive, qualified define names capitalize every segment.
define app::site($port = 80) {
  notify { "site ${title}": message => $port }
}
class web { notify { 'in web': } }
include web
app::site { 'shop': port => 8080 }
exec { ['a', 'b', 'c']: command => '/bin/true' }
file { '/tmp/x': ensure => file }
notify { 'refs':
  require => [Exec['a', 'b'], File['/tmp/x'], Class['WEB'], App::Site['shop']],
  before  => Exec['c'],
}
