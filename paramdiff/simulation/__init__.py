"""The simulated vehicle: what SITL and Gazebo make of the parameters.

- channels, geometry: a Gazebo model's ArduPilotPlugin channels and what each drives
- actuators, rotors, thrusters, frame: the frame rules (Rover skid, Sub 6DOF, Copter matrix)
- physics, builtin_models, gazebo_plugin: which physics a launch runs and its response
- mixer, pilot_input: a stick through ArduPilot's mixer and the physics to the body's motion
- capabilities: what each physics backend simulates that parameters depend on
- actuator_fidelity: the model's thrust against the firmware's assumptions
- launch_check: one launch of a profile checked end to end
"""
