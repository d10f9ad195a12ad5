# Classes and defined types: parameters with types and defaults, include,
# require, contain, resource-like declarations, $title/$name, containment,
# inherited noop/schedule/tags.
class base { notify { 'base': } }
class web (String $docroot = '/srv/www', Integer $workers = 4, Optional[String] $extra = undef) {
  require base
  contain web::vhosts
  file { $docroot: ensure => directory }
  notify { 'workers': message => $workers }
}
class web::vhosts { notify { 'vhosts': } }
class quiet { notify { 'quiet one': } }
define web::site (String $domain, Boolean $tls = false, Array[String] $aliases = []) {
  file { "/srv/www/${title}": ensure => directory }
  notify { "site ${name}": message => "${domain} tls=${tls} ${aliases}" }
}
class { 'web': workers => 8 }
include web, base
class { 'quiet': noop => true, schedule => 'daily', tag => 'hush' }
web::site { 'shop': domain => 'shop.example.com', aliases => ['www.shop'] }
web::site { 'blog': domain => 'blog.example.com', tls => true, name => 'the-blog' }
