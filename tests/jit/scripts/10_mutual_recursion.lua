function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
print(is_even(10), is_odd(10), is_even(7), is_odd(7))
function hofstadter_f(n) if n == 0 then return 1 end return n - hofstadter_m(hofstadter_f(n - 1)) end
function hofstadter_m(n) if n == 0 then return 0 end return n - hofstadter_f(hofstadter_m(n - 1)) end
for i = 0, 10 do print(i, hofstadter_f(i), hofstadter_m(i)) end
