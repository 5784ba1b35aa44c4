local hits = {0, 0, 0}
function hit(k) hits[k] = hits[k] + 1 end
for i = 1, 30 do hit(i % 3 + 1) end
print(hits[1], hits[2], hits[3])
