-- wrong: groups the calls but swaps the peers: sends to the left, receives from
--        the right, so rank r holds the next rank's message
-- verdict: not rank
-- exchange.lua - lab 10, exercise 4: every rank passes a message to the next
-- rank and takes one from the previous rank - one step of a ring.
-- mgpu.args[1]: the message's length in f32 elements.
--
-- As written, every rank sends first and receives after. Run it: with a
-- small message it finishes, with a large one it hangs until the watchdog
-- ends it. Make it finish at every size, on any number of ranks.
local comm = mgpu.comm()
local n, r = comm:size(), comm:rank()
local count = tonumber(mgpu.args[1] or "1024")
local right, left = (r + 1) % n, (r - 1) % n

local msg = mgpu.tensor{count = count, name = "msg"}:fill(r)     -- my message: every element = my rank
local got = mgpu.tensor{count = count, name = "got"}:fill(-1)

mgpu.group(function()
  comm:send(msg, left)
  comm:recv(got, right)
end)

-- what arrived (the lab checks it): whose message, and whether it is whole
local from = got:get(0)
local whole = mgpu.tensor(count):fill(from)
mgpu.result{got = math.tointeger(from) or from, mismatches = (got:compare(whole))}
