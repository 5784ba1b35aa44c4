-- Animates the parameters of a material over 600 frames at 60 Hz: a pulsing emissive strength,
-- a colour that cycles through hues, and a dissolve threshold that eases in and out.
local frames = 600
local dt = 1 / 60

local function pulse(t, speed)
  return 0.5 + 0.5 * math.sin(t * speed * 2 * math.pi)
end

local function ease_in_out(x)
  if x < 0.5 then
    return 2 * x * x
  end
  return 1 - (-2 * x + 2) ^ 2 / 2
end

local function hue_channel(h, offset)
  local k = (h * 6 + offset) % 6
  return math.max(0, math.min(k, 4 - k, 1))
end

local emissive_sum, r_sum, g_sum, b_sum, dissolve_max = 0, 0, 0, 0, 0
for frame = 0, frames - 1 do
  local t = frame * dt
  local emissive = 2.5 * pulse(t, 0.75)
  local h = (t * 0.1) % 1
  local r, g, b = hue_channel(h, 5), hue_channel(h, 3), hue_channel(h, 1)
  local phase = (t % 4) / 4
  local dissolve = ease_in_out(phase < 0.5 and phase * 2 or 2 - phase * 2)
  emissive_sum = emissive_sum + emissive
  r_sum, g_sum, b_sum = r_sum + r, g_sum + g, b_sum + b
  if dissolve > dissolve_max then dissolve_max = dissolve end
end
print("frames", frames)
print("mean emissive", math.floor(emissive_sum / frames * 1000 + 0.5) / 1000)
print("mean colour", math.floor(r_sum / frames * 1000 + 0.5) / 1000, math.floor(g_sum / frames * 1000 + 0.5) / 1000,
      math.floor(b_sum / frames * 1000 + 0.5) / 1000)
print("max dissolve", dissolve_max)

-- Called by the player once per rendered frame: the UI panel's tint pulses.
function frame(t)
  local p = pulse(t, 0.5)
  engine.ui_panel_color(0.6 + 0.4 * p, 0.6 + 0.4 * p, 1.0, 0.9)
end
