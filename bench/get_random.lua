-- wrk script: GET <prefix><uid> for a uid picked at random from a file (one uid per line).
-- Usage: wrk ... -s bench/get_random.lua http://host:port -- <uids file> [prefix]
local uids = {}
local n = 0
local prefix = "/registry/v2/repos/"

function init(args)
  for line in io.lines(args[1]) do
    n = n + 1
    uids[n] = line
  end
  if args[2] then prefix = args[2] end
  math.randomseed(os.time() + n)
end

function request()
  return wrk.format("GET", prefix .. uids[math.random(n)])
end
