# oracle.rb reads the cases gen.go writes and adds, for each, what Puppet's
# own schedule type answers: "true", "false", "new: <message>" when the
# attributes are rejected, or "match: <message>" when matching raises.
# Run with a Puppet 7 installed (Debian 12: apt-get install -y puppet).
require 'json'
require 'puppet'
Puppet.initialize_settings
STDOUT.sync = true
STDIN.each_line do |line|
  c = JSON.parse(line)
  ENV['TZ'] = c['tz']
  result =
    begin
      s = Puppet::Type.type(:schedule).new({ name: 's' }.merge(c['attrs'].transform_keys(&:to_sym)))
      begin
        s.match?(c['prev'], Time.at(c['now_sec'], c['now_nsec'], :nsec)) ? 'true' : 'false'
      rescue StandardError => e
        "match: #{e.message}"
      end
    rescue StandardError => e
      "new: #{e.message}"
    end
  c['puppet'] = result
  puts JSON.generate(c)
end
