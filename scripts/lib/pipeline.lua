-- wrk script: each wrk request is a batch of DEPTH pipelined GETs of the same path (argument 1, default 16).
init = function(args)
  local depth = tonumber(args[1]) or 16
  local r = {}
  for i = 1, depth do
    r[i] = wrk.format(nil)
  end
  req = table.concat(r)
end

request = function()
  return req
end
